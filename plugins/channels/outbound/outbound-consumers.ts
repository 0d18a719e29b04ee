import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, type BusService, type Egress, type Logger, type SecretsService } from '../../../core';
import type { ConversationWriter } from '../../conversations';
import type { ChannelDrivers } from '../channel-drivers';
import { findConnection, openConnection } from '../connections/connection-store';
import { ChannelSendError, type ChannelDriver, type DriverContext } from '../driver';
import { holdBehindEarlier, sendState, settleAndWakeNext, unpark } from './send-order';
import { textParts } from './text-parts';
import { applyWatermark } from './watermark-receipts';
import { CHANNEL_TOPICS, type ChannelAddress, type ReceiptPayload, type SendPayload, type SendUnparkPayload, type TypingPayload } from '../topics';

export interface OutboundDeps {
  bus: BusService;
  drivers: ChannelDrivers;
  secrets: SecretsService;
  egress: Egress;
  conversations: ConversationWriter;
  logger: Logger;
  settings: { sendAttempts: number; sendBackoffMs: number; sendWaitLimitMs: number };
}

type SendOutcome =
  | { kind: 'sent'; externalId: string }
  | { kind: 'already' }
  /** An earlier message of the thread is not settled yet: nothing was sent (send-order.ts). */
  | { kind: 'wait' }
  | { kind: 'retry'; reason: string; retryAfterSeconds: number | null; partsSent: number }
  | { kind: 'failed'; reason: string };

const MAX_BACKOFF_MS = 60 * 60 * 1000;

/** The connection's driver and what its calls are given; null when the connection or its driver is gone. */
async function driverContext(em: EntityManager, deps: OutboundDeps, address: ChannelAddress): Promise<{ driver: ChannelDriver; context: DriverContext } | null> {
  const row = await findConnection(em, address.connection_uuid);
  const driver = row ? deps.drivers.get(row.provider) : undefined;
  if (!row || !driver) return null;
  return {
    driver,
    context: {
      connection: openConnection(deps.secrets, row),
      egress: deps.egress,
      apiBaseUrl: deps.drivers.apiBaseUrl(driver),
      hookUrl: address.hook_url,
      logger: deps.logger.child({ provider: driver.provider, channel_uuid: address.channel_uuid }),
    },
  };
}

/** Waits before retry `attempt + 1`: exponential from `sendBackoffMs`, or longer when the provider asks (Retry-After). */
export function retryDelayMs(attempt: number, initialMs: number, retryAfterSeconds: number | null): number {
  const backoff = Math.min(MAX_BACKOFF_MS, initialMs * 4 ** (attempt - 1));
  return Math.max(backoff, retryAfterSeconds ? Math.min(MAX_BACKOFF_MS, retryAfterSeconds * 1000) : 0);
}

/**
 * Sends (`channels.send`): the driver's call in `prepare` (no transaction open while the
 * provider answers); the handler records the provider's id and `sent`. A retryable
 * failure is queued again as a delayed message, honouring the provider's Retry-After
 * (the bus's own retries cannot take a delay); a refusal, or the last attempt, is `failed`
 * with the reason. A thread's messages go one after another, in the order queued: a send
 * behind an unsettled one waits, and a settled one wakes the next (send-order.ts).
 * Typing indicators (`channels.typing`) are best effort.
 */
export function runOutbound(deps: OutboundDeps): void {
  const { bus, conversations, logger, settings } = deps;

  bus.consume<SendPayload, SendOutcome>(
    {
      name: 'send',
      topics: [CHANNEL_TOPICS.send],
      concurrency: 8,
      prepare: async (message, { em }) => {
        const payload = message.payload;
        const state = await sendState(em, message.tenant!, payload.message_uuid, settings.sendWaitLimitMs);
        if (state === 'sent') return { kind: 'already' };
        if (state === 'behind') return { kind: 'wait' };
        const found = await driverContext(em, deps, payload);
        if (!found) return { kind: 'failed', reason: 'The channel connection or its driver is gone' };
        // A text longer than the provider takes goes in parts, in order; a retry goes on after those sent.
        const parts = textParts(payload.text, found.driver.maxTextLength);
        let partsSent = payload.parts_sent ?? 0;
        let externalId = '';
        try {
          for (; partsSent < parts.length; partsSent++) {
            const reply = { ...(payload.from ? { from: payload.from } : {}), ...(payload.reply_to ? { replyTo: payload.reply_to } : {}) };
            const key = parts.length === 1 ? payload.message_uuid : `${payload.message_uuid}:${partsSent + 1}`;
            ({ externalId } = await found.driver.send(found.context, { to: payload.to, text: parts[partsSent], idempotencyKey: key, ...reply }));
          }
          // Receipts follow the last part: the message is delivered when all of it is.
          return { kind: 'sent', externalId };
        } catch (error) {
          if (error instanceof ChannelSendError) {
            return error.retryable ? { kind: 'retry', reason: error.message, retryAfterSeconds: error.retryAfterSeconds, partsSent } : { kind: 'failed', reason: error.message };
          }
          // A driver's unexpected error (a network failure it did not wrap) may pass: try again.
          return { kind: 'retry', reason: error instanceof Error ? error.message : String(error), retryAfterSeconds: null, partsSent };
        }
      },
    },
    async (message, { em, prepared }) => {
      const payload = message.payload;
      const tenant = message.tenant!;
      if (prepared.kind === 'wait') return holdBehindEarlier(em, bus, tenant, payload, settings.sendWaitLimitMs);
      if (prepared.kind === 'already') return settleAndWakeNext(em, bus, tenant, payload.message_uuid, null);
      if (prepared.kind === 'sent') {
        await settleAndWakeNext(em, bus, tenant, payload.message_uuid, prepared.externalId);
        await conversations.setDelivery(em, payload.message_uuid, 'sent');
        return;
      }
      // A retry leaves the delivery unsettled: the thread's later messages wait for it.
      if (prepared.kind === 'retry' && payload.attempt < settings.sendAttempts) {
        const delay = retryDelayMs(payload.attempt, settings.sendBackoffMs, prepared.retryAfterSeconds);
        logger.info('channel send will be retried', { channel_uuid: payload.channel_uuid, message_uuid: payload.message_uuid, attempt: payload.attempt, delay_ms: delay, reason: prepared.reason });
        await bus.publish(CHANNEL_TOPICS.send, { ...payload, attempt: payload.attempt + 1, parts_sent: prepared.partsSent } satisfies SendPayload, { delay });
        return;
      }
      const reason = prepared.kind === 'retry' ? `${prepared.reason} (gave up after ${payload.attempt} attempts)` : prepared.reason;
      logger.warn('channel send failed', { channel_uuid: payload.channel_uuid, message_uuid: payload.message_uuid, reason });
      await settleAndWakeNext(em, bus, tenant, payload.message_uuid, null);
      await conversations.setDelivery(em, payload.message_uuid, 'failed', reason);
    },
  );

  bus.consume<SendUnparkPayload, void>({ name: 'send-unpark', topics: [CHANNEL_TOPICS.sendUnpark] }, (message, { em }) => unpark(em, bus, message.tenant!, message.payload.message_uuid));

  bus.consume<TypingPayload, void>(
    {
      name: 'typing',
      topics: [CHANNEL_TOPICS.typing],
      concurrency: 4,
      prepare: async (message, { em }) => {
        const found = await driverContext(em, deps, message.payload);
        if (!found?.driver.typing) return;
        try {
          await found.driver.typing(found.context, message.payload.to, message.payload.reply_to);
        } catch (error) {
          // Only a courtesy: the reply goes out whether or not the customer saw it being typed.
          logger.info('typing indicator not shown', { channel_uuid: message.payload.channel_uuid, error: error instanceof Error ? error.message : String(error) });
        }
      },
    },
    async () => {},
  );

  // A receipt may come before the send's handler recorded the provider's id: looked for again a few times, then dropped.
  const RECEIPT_ATTEMPTS = 5;
  bus.consume<ReceiptPayload>(
    { name: 'receipts', topics: [CHANNEL_TOPICS.receipt], concurrency: 4, retry: { attempts: RECEIPT_ATTEMPTS, backoff: { initialMs: 500, factor: 2 } } },
    async (message, { em }) => {
      const { channel_uuid: channelUuid, external_id: externalId, status, reason } = message.payload;
      // A watermark names no message: what it covers is what was sent by then, so nothing is waited for.
      if (externalId === null) return void (await applyWatermark(em, conversations, message.tenant!, message.payload));
      const [row] = await boundQuery<{ uuid: string }>(em, 'select uuid from channel_deliveries where tenant_uuid = $1 and channel_uuid = $2 and external_id = $3 limit 1', [
        message.tenant!.uuid,
        channelUuid,
        externalId,
      ]);
      if (!row) {
        if (message.attempt < RECEIPT_ATTEMPTS) throw new Error(`no message of channel ${channelUuid} was sent as ${externalId} (yet)`);
        return;
      }
      await conversations.setDelivery(em, row.uuid, status, reason);
    },
  );
}
