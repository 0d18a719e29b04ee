import { EgressError, findByUuid } from '../../../core';
import { webhookHeaders } from '../../agent-webhooks';
import { Transcription } from '../entities';
import { callbackSecretColumn } from '../secret-columns';
import { TRANSCRIPTION_TOPICS, type CallbackPayload } from '../topics';
import type { TranscriptionDeps } from './deps';

const CALLBACK_TIMEOUT_MS = 10_000;

/**
 * Delivers completion callbacks: a Standard-Webhooks-signed POST (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature` with the transcription's callback secret)
 * through the egress guard, from `prepare` (no transaction held while the endpoint
 * answers). Any 2xx is done; anything else is retried by the bus with backoff
 * (TRANSCRIPTION_CALLBACK_ATTEMPTS), and the last failure is logged and given up.
 * A transcription deleted meanwhile is not announced.
 */
export function registerCallbackJob(deps: TranscriptionDeps): void {
  const { bus, egress, secrets, logger, settings } = deps;
  const attempts = Math.max(1, settings.callbackAttempts);
  bus.consume<CallbackPayload, void>(
    {
      name: 'callback',
      topics: [TRANSCRIPTION_TOPICS.callback],
      concurrency: 8,
      retry: { attempts, backoff: { initialMs: settings.callbackBackoffMs, factor: 6, maxMs: 6 * 3_600_000 } },
      prepare: async (message, { em }) => {
        const row = await findByUuid(em, Transcription, message.payload.uuid);
        if (!row?.callbackUrl) return;
        const secret = row.callbackSecret ? secrets.decrypt(row.callbackSecret, callbackSecretColumn.context(row.tenantUuid)) : null;
        const { webhook_id: id, body } = message.payload;
        let failure: string;
        try {
          const response = await egress.request(row.callbackUrl, { method: 'POST', headers: webhookHeaders(id, body, secret), body, timeoutMs: CALLBACK_TIMEOUT_MS, retries: 0 });
          if (response.status >= 200 && response.status < 300) return;
          failure = `answered ${response.status}`;
        } catch (error) {
          if (!(error instanceof EgressError)) throw error;
          failure = error.message;
        }
        if (message.attempt < attempts) throw new Error(`Transcription callback to ${row.callbackUrl} failed: ${failure}`);
        logger.warn('transcription callback given up', { transcription_uuid: row.uuid, attempts: message.attempt, error: failure });
      },
    },
    async () => {},
  );
}
