import type { EntityManager } from '@mikro-orm/postgresql';
import {
  BadRequestError,
  NotFoundError,
  Reply,
  Type,
  UnauthorizedError,
  Uuid,
  boundQuery,
  defineRoute,
  newUuid,
  type AnyRoute,
  type BusService,
  type Logger,
  type SecretsService,
  type TenantService,
} from '../../../core';
import type { AgentChannels } from '../../agents';
import type { ChannelDrivers } from '../channel-drivers';
import { connectionUuidOf } from '../connections/connection-uuid';
import { findConnection, openConnection } from '../connections/connection-store';
import type { ChannelConnectionValue, ChannelDriver, InboundEvent, InboundRequest } from '../driver';

import type { AudioTranscription } from './audio-transcriber';
import { audioOf, needsTranscription } from './inbound-audio';
import { CHANNEL_TOPICS, type ChannelAddress, type InboundPayload, type ReceiptPayload } from '../topics';
import { applyTemplateStatus } from '../templates/template-store';
import { inboundRequest, publicOrigin } from './inbound-request';

export interface HookRouteDeps {
  channels: AgentChannels;
  drivers: ChannelDrivers;
  secrets: SecretsService;
  tenants: TenantService;
  bus: BusService;
  logger: Logger;
  publicBaseUrl: string;
  transcription: AudioTranscription;
}

const HookParams = Type.Object({ channel_uuid: Uuid({ description: 'The agent channel the provider was told to call' }) });
const NO_CHANNEL = 'No channel takes messages here';

/** The channel, its connection (credentials opened) and its driver; 404 for anything that cannot take a message. */
async function resolveChannel(em: EntityManager, channelUuid: string, deps: HookRouteDeps) {
  const found = await deps.channels.find(channelUuid);
  const connectionUuid = connectionUuidOf(found?.config);
  if (!found || !found.is_active || !connectionUuid) throw new NotFoundError(NO_CHANNEL);
  const channel = { uuid: found.channel_uuid, tenantUuid: found.tenant.uuid, agentUuid: found.agent_uuid, type: found.type, isActive: found.is_active, connectionUuid };
  const tenant = found.tenant;
  const row = await deps.tenants.run(tenant, () => findConnection(em, connectionUuid));
  const driver = row ? deps.drivers.get(row.provider) : undefined;
  // A connection of another tenant is not found; a driver that cannot carry this channel's type is no route either.
  if (!row || !driver || !driver.channelTypes.includes(channel.type)) throw new NotFoundError(NO_CHANNEL);
  return { channel, tenant, driver, connection: openConnection(deps.secrets, row) };
}

function verified(driver: ChannelDriver, request: InboundRequest, connection: ChannelConnectionValue, logger: Logger): boolean {
  try {
    return driver.verify(request, connection) === true;
  } catch (error) {
    logger.warn('channel driver verify threw: the request is refused', { provider: driver.provider, error: error instanceof Error ? error.message : String(error) });
    return false;
  }
}

/**
 * In one short transaction: each new message (channel, provider id) recorded once and
 * queued for its turn, a provider's retry of one found and only acknowledged; each
 * receipt queued for the message it names. A message with a voice note goes to the audio
 * step first (`channels.audio`: fetched and transcribed) when the driver can fetch it and
 * a transcriber is installed; its sender's later messages wait for its turn. A template's status change (the chatapp's
 * `message_template_status_update`) is written to the stored template, if there is one.
 */
async function record(em: EntityManager, deps: HookRouteDeps, address: ChannelAddress, tenantUuid: string, events: InboundEvent[], canFetch: boolean): Promise<number> {
  const messages = events.filter((event) => event.kind === 'message');
  const receipts = events.filter((event) => event.kind === 'receipt');
  const templateStatuses = events.filter((event) => event.kind === 'template_status');
  if (messages.length === 0 && receipts.length === 0 && templateStatuses.length === 0) return 0;
  return em.transactional(async (tx) => {
    let fresh = 0;
    for (const update of templateStatuses) {
      await applyTemplateStatus(tx, tenantUuid, { wabaId: update.businessAccountId, templateId: update.templateId, status: update.status, reason: update.reason });
    }
    for (const message of messages) {
      const transcribed = needsTranscription(message.media, canFetch, deps.transcription);
      // The statement's clock, not the transaction's: messages of one webhook keep their order. A voice note
      // bound for the audio step holds its sender's later messages until its turn (arrival-order.ts).
      const [inserted] = await boundQuery(
        tx,
        'insert into channel_inbound_messages (uuid, tenant_uuid, created_at, updated_at, channel_uuid, external_id, awaiting_from) values ($1, $2, clock_timestamp(), now(), $3, $4, $5) ' +
          'on conflict (channel_uuid, external_id) do nothing returning uuid',
        [newUuid(), tenantUuid, address.channel_uuid, message.externalId, transcribed ? message.from : null],
      );
      if (!inserted) continue;
      fresh += 1;
      const payload: InboundPayload = {
        ...address,
        external_id: message.externalId,
        from: message.from,
        to: message.to ?? null,
        text: message.text,
        media: message.media ?? [],
        profile_name: message.profileName ?? null,
      };
      if (transcribed) {
        await deps.bus.publish(CHANNEL_TOPICS.audio, payload);
        continue;
      }
      // Audio the driver could fetch but nobody can transcribe: its turn gets the placeholder.
      if (canFetch && audioOf(payload.media)) payload.transcript = null;
      await deps.bus.publish(CHANNEL_TOPICS.inbound, payload);
    }
    if (receipts.length > 0) {
      const payloads: ReceiptPayload[] = receipts.map((receipt) =>
        'watermark' in receipt
          ? { channel_uuid: address.channel_uuid, external_id: null, status: receipt.status, reason: null, to: receipt.to, watermark: receipt.watermark.toISOString() }
          : { channel_uuid: address.channel_uuid, external_id: receipt.externalId, status: receipt.status, reason: receipt.reason ?? null },
      );
      await deps.bus.publishMany(CHANNEL_TOPICS.receipt, payloads);
    }
    return fresh;
  });
}

const DESCRIPTION =
  'Where a provider delivers an agent channel’s messages and delivery receipts (give it this URL with the channel’s uuid). No bearer: the request must carry the provider’s ' +
  'own signature (`X-Twilio-Signature`, `X-Hub-Signature-256`, `X-Telegram-Bot-Api-Secret-Token`, as the connection’s driver checks it), else 401 and nothing is recorded. ' +
  'The body is JSON or form fields, as the provider sends it. Each message is recorded once by its provider id (a retry is acknowledged and ignored) and answered by the ' +
  'agent on the bus; the request is acknowledged at once, in the form the provider expects. On a chatapp channel, the platform’s `message_template_status_update` ' +
  'events update the status (and reason) of the stored template with that platform id; unknown ids are ignored. A channel that is unknown, inactive, without a connection or whose ' +
  'connection’s driver cannot carry it answers 404.';

/** `POST|GET /hooks/channels/{channel_uuid}`: the providers' webhooks. */
export function hookRoutes(deps: HookRouteDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/hooks/channels/:channel_uuid',
      summary: 'Receive a channel provider’s webhook',
      description: DESCRIPTION,
      tags: ['channels'],
      auth: 'public',
      params: HookParams,
      errors: [400, 401, 404, 413],
      response: Type.Unknown({ description: 'What the provider expects: `{"received": true}` unless its driver says otherwise (Twilio: an empty TwiML response)' }),
      // The signature is checked before any transaction opens; the recording is one short one.
      transactional: false,
      handler: async ({ params, req, em }) => {
        const { channel, tenant, driver, connection } = await resolveChannel(em, params.channel_uuid, deps);
        const request = await inboundRequest(req, deps.publicBaseUrl);
        if (!verified(driver, request, connection, deps.logger)) throw new UnauthorizedError('The request does not carry a valid signature of the provider');
        let events: InboundEvent[];
        try {
          events = driver.parse(request, connection);
        } catch (error) {
          throw new BadRequestError(`The webhook body could not be read: ${error instanceof Error ? error.message : String(error)}`);
        }
        const address: ChannelAddress = {
          channel_uuid: channel.uuid,
          agent_uuid: channel.agentUuid,
          connection_uuid: connection.uuid,
          channel_type: channel.type,
          hook_url: `${publicOrigin(req, deps.publicBaseUrl)}/hooks/channels/${channel.uuid}`,
        };
        await deps.tenants.run(tenant, () => record(em, deps, address, tenant.uuid, events, !!driver.fetchMedia));
        const ack = driver.acknowledge;
        return ack ? new Reply(200, Buffer.from(ack.body, 'utf8'), { 'content-type': ack.contentType }) : new Reply(200, { received: true });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/hooks/channels/:channel_uuid',
      summary: 'Answer a channel provider’s verification handshake',
      description: 'The Graph API’s `hub.challenge` (with the connection’s `verify_token`), as the connection’s driver answers it; 404 where the driver has none or refuses.',
      tags: ['channels'],
      auth: 'public',
      params: HookParams,
      errors: [404],
      response: Type.String({ description: 'The challenge, as the provider wants it back' }),
      handler: async ({ params, req, em }) => {
        const { driver, connection } = await resolveChannel(em, params.channel_uuid, deps);
        const answer = driver.challenge?.(await inboundRequest(req, deps.publicBaseUrl), connection) ?? null;
        if (!answer) throw new NotFoundError('No verification handshake is expected here');
        return new Reply(answer.status, Buffer.from(answer.body, 'utf8'), { 'content-type': answer.contentType });
      },
    }),
  ];
}
