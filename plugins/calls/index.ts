import { coreServices, createServiceFactory, createServiceRef, definePlugin } from '../../core';
import { agentChannelChecks, agentChannelsRef, agentDirectoryRef, agentWebhookEvents } from '../agents';
import { channelConnectionsRef } from '../channels';
import { contactDirectoryRef } from '../contacts';
import { conversationWriterRef } from '../conversations';
import { chatTurnsRef } from '../runtime';
import { fileStorageRef } from '../storage';
import { pbxDirectoryRef } from '../telephony';
import { telephonyDrivers } from './drivers-point';
import { twilioVoiceDriver } from './drivers/twilio';
import { runCallConsumers } from './engine/consumers';
import { scheduleRecordingsSweep } from './engine/recordings-sweep';
import type { CallDeps } from './engine/deps';
import { lineProblems, placeCall, type PlaceCallInput } from './engine/place-call';
import * as entities from './entities';
import { voiceHooks } from './hooks/voice-hooks';
import { Migration0001Calls } from './migrations/0001-calls';
import { Migration0002CallTransferFallback } from './migrations/0002-call-transfer-fallback';
import { phoneChannelCheck } from './phone-channel-check';
import { callRoutes } from './routes/call-routes';
import { liveRoutes } from './routes/live-routes';
import { callStatusEvent } from './topics';
import type { CallJson } from './call-view';
import type { FieldErrors, TenantRef } from '../../core';

// The public API of the calls plugin: what telephony driver plugins and outreach import.
export { telephonyDrivers } from './drivers-point';
export {
  defineTelephonyDriver,
  TelephonySendError,
  type TelephonyDriver,
  type TelephonyConnection,
  type CallDriverContext,
  type CallInstruction,
  type CallEvent,
  type CallbackKind,
  type ServedKind,
  type TransferMode,
  type TransferOutcome,
  type Announcement,
  type MuteChange,
  type IncomingCall,
  type PlaceCall,
  type ProviderCallStatus,
} from './driver';
export { CALL_TOPICS, type CallStatusEvent } from './topics';
export type { CallJson } from './call-view';
export type { PlaceCallInput } from './engine/place-call';

/** Placing a call outside a request (outreach's `make_call`): what `POST /api/v1/call` does. */
export interface CallPlacing {
  /** Places the call; run it with no transaction open (the provider is called). */
  place(tenant: TenantRef, input: PlaceCallInput): Promise<CallJson>;
  /** What keeps the agent (of the current tenant) from calling, by field (`agent_uuid`, `from`); empty when it can, null for no such agent. */
  lineProblems(agentUuid: string, from?: string): Promise<FieldErrors | null>;
  /** PUBLIC_BASE_URL, where the provider calls back: a call placed with no request to take an origin from needs it (empty: not set). */
  publicBaseUrl: string;
}
export const callPlacingRef = createServiceRef<CallPlacing>('calls.placing');

const callDepsRef = createServiceRef<CallDeps>('calls.deps');

/** Agents that talk on the phone: calls placed and answered through telephony drivers, each utterance a runtime turn. */
export default definePlugin({
  entities: [entities.Call],
  migrations: [
    { name: '0001-calls', class: Migration0001Calls },
    { name: '0002-call-transfer-fallback', class: Migration0002CallTransferFallback },
  ],
  provides: [telephonyDrivers],
  services: [
    createServiceFactory({
      service: callDepsRef,
      deps: {
        orm: coreServices.orm,
        tenants: coreServices.tenant,
        bus: coreServices.bus,
        egress: coreServices.egress,
        logger: coreServices.logger,
        storage: fileStorageRef,
        connections: channelConnectionsRef,
        agents: agentDirectoryRef,
        agentChannels: agentChannelsRef,
        conversations: conversationWriterRef,
        contacts: contactDirectoryRef,
        turns: chatTurnsRef,
        pbx: pbxDirectoryRef,
      },
      factory: (deps, { extensions }) => ({
        ...deps,
        drivers: new Map(extensions.items(telephonyDrivers).map((driver) => [driver.provider, driver])),
      }),
    }),
    createServiceFactory({
      service: callPlacingRef,
      deps: { deps: callDepsRef },
      factory: ({ deps }) => ({
        place: (tenant, input) => placeCall(deps, tenant, input),
        async lineProblems(agentUuid, from) {
          const agent = await deps.agents.getWithoutSlots(agentUuid);
          return agent ? lineProblems(agent, from) : null;
        },
        publicBaseUrl: deps.connections.publicBaseUrl,
      }),
    }),
  ],
  contributes: [telephonyDrivers.add(twilioVoiceDriver), agentWebhookEvents.add(callStatusEvent)],
  deps: { http: coreServices.http, lifecycle: coreServices.lifecycle, deps: callDepsRef },
  init({ http, lifecycle, deps }) {
    for (const route of [...callRoutes(deps), ...liveRoutes(deps), ...voiceHooks(deps)]) http.route(route);
    runCallConsumers(deps);
    scheduleRecordingsSweep({ lifecycle, storage: deps.storage, logger: deps.logger });
  },
});
