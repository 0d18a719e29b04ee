import { BootError, ContributedDeps, configRef, coreServices, createServiceFactory, definePlugin } from '../../core';
import { agentChannelChecks, agentChannelsRef, agentDirectoryRef } from '../agents';
import { contactDirectoryRef } from '../contacts';
import { connectionCheck } from './connections/channel-config-check';
import { conversationWriterRef } from '../conversations';
import { chatTurnsRef } from '../runtime';
import { ChannelDrivers } from './channel-drivers';
import { channelsConfig } from './channels-config';
import { connectionRoutes } from './connections/connection-routes';
import { channelCredentials } from './connections/connection-secret';
import { channelDrivers } from './drivers-point';
import { chatappDriver } from './drivers/chatapp';
import { socialDriver } from './drivers/social';
import { telegramDriver } from './drivers/telegram';
import { twilioDriver } from './drivers/twilio';
import * as entities from './entities';
import { audioTranscription, inboundAudioTranscriber, inboundAudioTranscriberDepsRef, type InboundAudioTranscriber } from './inbound/audio-transcriber';
import { hookRoutes } from './inbound/hook-route';
import { runInboundAudio } from './inbound/inbound-audio';
import { scheduleInboundRetention } from './inbound/inbound-retention';
import { Migration0001Channels } from './migrations/0001-channels';
import { Migration0002ChatappTemplates } from './migrations/0002-chatapp-templates';
import { Migration0003TemplateStatusReason } from './migrations/0003-template-status-reason';
import { Migration0004InboundOrder } from './migrations/0004-inbound-order';
import { Migration0005SendOrder } from './migrations/0005-send-order';
import { channelSendingRef } from './outreach';
import { channelConnectionsRef, createChannelConnections } from './connections/connection-opener';
import { templateRoutes } from './templates/template-routes';
import { runOutbound } from './outbound/outbound-consumers';
import { runInboundTurns } from './turns/inbound-turns';

// The public API of the channels plugin: what driver plugins import.
export { channelDrivers } from './drivers-point';
export {
  defineChannelDriver,
  ChannelSendError,
  type ChannelDriver,
  type ChannelConnectionValue,
  type DriverContext,
  type InboundRequest,
  type InboundEvent,
  type InboundMessage,
  type InboundMedia,
  type DeliveryReceipt,
  type OutboundMessage,
  type FetchedMedia,
  InboundMediaError,
} from './driver';
// The voice-note slot, filled by plugins/channels-transcriptions (so channels runs without transcriptions).
export { inboundAudioTranscriber, contributeInboundAudioTranscriber, type InboundAudioTranscriber } from './inbound/audio-transcriber';
// The outreach executor, contributed by plugins/channels-outreach (so channels runs without outreach).
export { sendMessageExecutor, channelSendingRef, type SendMessageDeps } from './outreach';
// Connections for plugins that reach the same providers (calls: a Twilio account's voice).
export { channelConnectionsRef, type ChannelConnections } from './connections/connection-opener';
export { publicOrigin, inboundRequest } from './inbound/inbound-request';
export { verifyTwilioSignature } from './drivers/twilio/signature';
export { twilioReason } from './drivers/twilio/outbound';
export { TwilioCredentials } from './drivers/twilio/credentials';

/** Agents answer where customers are: channel connections, inbound hooks, replies sent through each provider's driver. */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [
    { name: '0001-channels', class: Migration0001Channels },
    { name: '0002-chatapp-templates', class: Migration0002ChatappTemplates },
    { name: '0003-template-status-reason', class: Migration0003TemplateStatusReason },
    { name: '0004-inbound-order', class: Migration0004InboundOrder },
    { name: '0005-send-order', class: Migration0005SendOrder },
  ],
  config: channelsConfig,
  provides: [channelDrivers, inboundAudioTranscriber],
  services: [
    createServiceFactory({
      service: inboundAudioTranscriberDepsRef,
      deps: {},
      factory: () => new ContributedDeps<InboundAudioTranscriber>(() => 'the inbound audio transcriber', 'contributeInboundAudioTranscriber'),
    }),
    createServiceFactory({
      service: channelConnectionsRef,
      deps: { secrets: coreServices.secrets, config: configRef(channelsConfig) },
      factory: ({ secrets, config }, { extensions }) => {
        const settings = config.all();
        return createChannelConnections(secrets, new ChannelDrivers(extensions.items(channelDrivers), settings), settings.publicBaseUrl);
      },
    }),
    // What sending a message outside a turn needs (outreach's send_message tasks).
    createServiceFactory({
      service: channelSendingRef,
      deps: {
        bus: coreServices.bus,
        secrets: coreServices.secrets,
        logger: coreServices.logger,
        tenants: coreServices.tenant,
        config: configRef(channelsConfig),
        agents: agentDirectoryRef,
        conversations: conversationWriterRef,
        turns: chatTurnsRef,
      },
      factory: ({ config, ...deps }, { extensions }) => {
        const settings = config.all();
        return { ...deps, drivers: new ChannelDrivers(extensions.items(channelDrivers), settings), publicBaseUrl: settings.publicBaseUrl };
      },
    }),
  ],
  // The built-in providers; a partner plugin adds its own the same way.
  contributes: [...[twilioDriver, chatappDriver, socialDriver, telegramDriver].map((driver) => channelDrivers.add(driver)), agentChannelChecks.add(connectionCheck)],
  deps: {
    http: coreServices.http,
    bus: coreServices.bus,
    secrets: coreServices.secrets,
    egress: coreServices.egress,
    logger: coreServices.logger,
    tenants: coreServices.tenant,
    config: configRef(channelsConfig),
    agents: agentDirectoryRef,
    channels: agentChannelsRef,
    conversations: conversationWriterRef,
    turns: chatTurnsRef,
    contacts: contactDirectoryRef,
    lifecycle: coreServices.lifecycle,
    orm: coreServices.orm,
    transcriberDeps: inboundAudioTranscriberDepsRef,
  },
  init({ http, bus, secrets, egress, logger, tenants, config, agents, channels, conversations, turns, contacts, lifecycle, orm, transcriberDeps }, { extensions }) {
    secrets.declareColumn(channelCredentials);
    const settings = config.all();
    const drivers = new ChannelDrivers(extensions.items(channelDrivers), settings);
    const transcriber = extensions.get(inboundAudioTranscriber);
    const transcription = audioTranscription(transcriber, (item) => transcriberDeps.of(item));
    // Checked once every plugin's init has run: the filling plugin hands its deps over in its own.
    lifecycle.onStart(() => {
      const unprovided = transcriberDeps.missing(transcriber ? [transcriber] : []);
      if (unprovided.length > 0) throw new BootError(`${unprovided.join(', ')}: deps named but never provided (contribute with contributeInboundAudioTranscriber(...))`);
    });
    for (const route of connectionRoutes({ drivers, secrets, egress, logger, channels })) http.route(route);
    for (const route of hookRoutes({ channels, drivers, secrets, tenants, bus, logger, publicBaseUrl: settings.publicBaseUrl, transcription })) http.route(route);
    runInboundAudio({ bus, drivers, secrets, egress, logger, transcription, settings });
    runInboundTurns({ bus, turns, agents, conversations, drivers, logger, contacts });
    scheduleInboundRetention({ lifecycle, orm, logger, retentionDays: settings.inboundRetentionDays });
    runOutbound({ bus, drivers, secrets, egress, conversations, logger, settings });
    for (const route of templateRoutes({ drivers, secrets, egress })) http.route(route);
  },
});
