import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request } from 'express';
import { BadRequestError, NotFoundError, Reply, Type, UnauthorizedError, Uuid, defineRoute, type AnyRoute, type TenantRef } from '../../../core';
import { inboundRequest, publicOrigin, type InboundRequest } from '../../channels';
import type { CallEvent, CallInstruction, CallbackKind, ServedKind, TelephonyDriver } from '../driver';
import { announcement, answered, recording, silence, speech, status, type CallRef } from '../engine/call-events';
import { lockCall, lockCallByExternalId, routeCall } from '../engine/call-rows';
import type { CallDeps } from '../engine/deps';
import { incomingCall } from '../engine/incoming';
import { transferEnded } from '../engine/transfers';
import { openLine, type Line } from '../engine/line';

const KINDS: Array<CallbackKind | ServedKind> = ['answer', 'listen', 'status', 'recording', 'dial', 'announce'];
const NO_CALL = 'No call takes callbacks here';

const CallbackParams = Type.Object({
  call_uuid: Uuid({ description: 'The call the provider was given this URL for' }),
  kind: Type.Union(KINDS.map((kind) => Type.Literal(kind)), { description: '`answer`, `listen`, `status`, `recording`, `dial` (how a transfer’s dial ended), or `announce` (a warm transfer’s announcement, its `text` in the query)' }),
});
const ChannelParams = Type.Object({ channel_uuid: Uuid({ description: 'The agent `phone` channel whose connection’s numbers call here' }) });

function verifiedRequest(driver: TelephonyDriver, request: InboundRequest, line: Line, deps: CallDeps): void {
  let valid = false;
  try {
    valid = driver.verify(request, line.context.connection) === true;
  } catch (error) {
    deps.logger.warn('telephony driver verify threw: the request is refused', { provider: driver.provider, error: error instanceof Error ? error.message : String(error) });
  }
  if (!valid) throw new UnauthorizedError('The request does not carry a valid signature of the provider');
}

function read<T>(what: () => T): T {
  try {
    return what();
  } catch (error) {
    throw new BadRequestError(`The callback body could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const answer = (line: Line, instructions: readonly CallInstruction[]) => {
  const { contentType, body } = line.driver.respond(line.context, instructions);
  return new Reply(200, Buffer.from(body, 'utf8'), { 'content-type': contentType });
};

/** What one event of a call's callback asks for; a status or a recording asks for nothing. */
async function onEvent(deps: CallDeps, tenant: TenantRef, em: EntityManager, ref: CallRef, event: CallEvent): Promise<CallInstruction[]> {
  const callUuid = ref.uuid;
  switch (event.kind) {
    case 'answered':
      return answered(deps, ref, event.answeredBy);
    case 'speech':
      return speech(deps, tenant, ref, event.text);
    case 'silence':
      return silence(deps, ref);
    case 'status':
      await em.fork().transactional(async (tx) => {
        const call = await lockCall(tx, callUuid);
        if (call) await status(deps, call, tx, event);
      });
      return [];
    case 'recording':
      await recording(deps, callUuid, event.url);
      return [];
    case 'transfer_ended':
      return transferEnded(deps, ref, event);
  }
}

/** The channel's line for an incoming call or its status: the channel, its tenant, its connection opened. */
async function channelLine(deps: CallDeps, em: EntityManager, channelUuid: string, origin: string) {
  const channel = await deps.agentChannels.find(channelUuid);
  const connectionUuid = typeof channel?.config.connection_uuid === 'string' ? channel.config.connection_uuid.toLowerCase() : null;
  if (!channel || channel.type !== 'phone' || !channel.is_active || !connectionUuid) throw new NotFoundError('No phone channel takes calls here');
  const line = await deps.tenants.run(channel.tenant, () => openLine(deps, em, { uuid: '', connectionUuid, callbackOrigin: origin }));
  if (!line) throw new NotFoundError('No phone channel takes calls here');
  return { channel, connectionUuid, line };
}

/**
 * The providers' callbacks: a call to one of the account's numbers (`/hooks/voice/{channel_uuid}`,
 * the Voice URL of the numbers), that call's status (the numbers' status callback URL),
 * and each call's own callbacks (`/hooks/calls/{call_uuid}/{kind}`, URLs the plugin
 * gives the provider). No bearer: the provider's signature, checked by the driver, or 401.
 */
export function voiceHooks(deps: CallDeps): AnyRoute[] {
  const origin = (req: Request) => publicOrigin(req, deps.connections.publicBaseUrl);
  return [
    defineRoute({
      method: 'POST',
      path: '/hooks/voice/:channel_uuid',
      summary: 'Receive a call to one of the account’s numbers',
      description:
        'Give this URL (with the agent `phone` channel’s uuid) to the provider as the Voice URL of its numbers. The call goes to the agent of this tenant owning the ' +
        'called number (`capabilities.call`), else to the channel’s agent; it is answered in the provider’s language (TwiML for Twilio). Signed by the provider, or 401.',
      tags: ['calls'],
      auth: 'public',
      params: ChannelParams,
      errors: [400, 401, 404, 413],
      response: Type.Unknown({ description: 'What the provider plays (TwiML for Twilio)' }),
      transactional: false,
      handler: async ({ params, req, em }) => {
        const { channel, connectionUuid, line } = await channelLine(deps, em, params.channel_uuid, origin(req));
        const request = await inboundRequest(req, deps.connections.publicBaseUrl);
        verifiedRequest(line.driver, request, line, deps);
        const incoming = read(() => line.driver.parseIncoming(request));
        const { callUuid, instructions } = await deps.tenants.run(channel.tenant, () =>
          incomingCall(deps, em, channel, connectionUuid, line.context.connection.provider, incoming, origin(req)),
        );
        const context = { ...line.context, callbackUrl: (kind: CallbackKind | ServedKind) => `${origin(req)}/hooks/calls/${callUuid}/${kind}` };
        return answer({ driver: line.driver, context }, instructions);
      },
    }),

    defineRoute({
      method: 'POST',
      path: '/hooks/voice/:channel_uuid/status',
      summary: 'Receive the status of a call to one of the account’s numbers',
      description: 'Give this URL to the provider as its numbers’ status callback: the end of an incoming call is known from it. Signed by the provider, or 401.',
      tags: ['calls'],
      auth: 'public',
      params: ChannelParams,
      errors: [400, 401, 404, 413],
      response: Type.Unknown(),
      transactional: false,
      handler: async ({ params, req, em }) => {
        const { channel, connectionUuid, line } = await channelLine(deps, em, params.channel_uuid, origin(req));
        const request = await inboundRequest(req, deps.connections.publicBaseUrl);
        verifiedRequest(line.driver, request, line, deps);
        const { externalId } = read(() => line.driver.parseIncoming(request));
        const events = read(() => line.driver.parse('status', request));
        await deps.tenants.run(channel.tenant, () =>
          em.fork().transactional(async (tx) => {
            const call = await lockCallByExternalId(tx, connectionUuid, externalId);
            for (const event of events) if (call && event.kind === 'status') await status(deps, call, tx, event);
          }),
        );
        return answer(line, []);
      },
    }),

    defineRoute({
      method: 'POST',
      path: '/hooks/calls/:call_uuid/:kind',
      summary: 'Receive a callback of one call',
      description:
        'The URLs the plugin gives the provider for one call: `answer` (picked up: the first instructions), `listen` (what the caller said, or silence: the agent’s ' +
        'turn), `status` (its state), `recording`, `dial` (a transfer’s dial ended: answered, the call ends `transferred`; busy, unanswered or failed, the agent ' +
        'takes the call back with its fallback line and listens again), and `announce` (what the callee of a warm transfer hears before being connected: the `text` query parameter, said in ' +
        'the agent’s voice; the provider requests it on the callee’s leg, after the call has ended for the agent). Signed by the provider, or 401; an unknown call is 404.',
      tags: ['calls'],
      auth: 'public',
      params: CallbackParams,
      errors: [400, 401, 404, 413],
      response: Type.Unknown({ description: 'What the provider plays next (TwiML for Twilio)' }),
      transactional: false,
      handler: async ({ params, req, em }) => {
        const routed = await routeCall(deps.orm, params.call_uuid);
        if (!routed) throw new NotFoundError(NO_CALL);
        const callOrigin = origin(req);
        const line = await deps.tenants.run(routed.tenant, () => openLine(deps, em, { uuid: routed.callUuid, connectionUuid: routed.connectionUuid, callbackOrigin: callOrigin }));
        if (!line) throw new NotFoundError(NO_CALL);
        const request = await inboundRequest(req, deps.connections.publicBaseUrl);
        verifiedRequest(line.driver, request, line, deps);
        const ref: CallRef = { uuid: routed.callUuid, agentUuid: routed.agentUuid };
        if (params.kind === 'announce') return answer(line, await deps.tenants.run(routed.tenant, () => announcement(deps, ref, request.query.text ?? '')));
        const kind = params.kind;
        const events = read(() => line.driver.parse(kind, request));
        let instructions: CallInstruction[] = [];
        for (const event of events) instructions = await deps.tenants.run(routed.tenant, () => onEvent(deps, routed.tenant, em, ref, event));
        return answer(line, instructions);
      },
    }),
  ];
}
