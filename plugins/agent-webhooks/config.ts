import type { ConfigValues } from '../../core';

/** The agent-webhooks plugin's config slice (convict). */
export const agentWebhooksConfig = {
  retrySchedule: {
    doc: 'Waits before each retry of a failed delivery, comma-separated (ms, or with s/m/h); after the last retry fails the delivery is failed. Each wait gets up to ±10% jitter',
    format: String,
    default: '5s,30s,2m,10m,1h,6h',
    env: 'AGENT_WEBHOOKS_RETRY_SCHEDULE',
  },
  timeoutMs: {
    doc: 'Longest wait for a webhook endpoint to answer one attempt',
    format: 'nat',
    default: 10000,
    env: 'AGENT_WEBHOOKS_TIMEOUT_MS',
  },
  concurrency: {
    doc: 'Deliveries one worker process sends at once',
    format: 'nat',
    default: 32,
    env: 'AGENT_WEBHOOKS_CONCURRENCY',
  },
};

/** The slice as validated at boot. */
export type AgentWebhooksSettings = ConfigValues<typeof agentWebhooksConfig>;

const UNITS: Record<string, number> = { '': 1, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `'5s,30s,2m'` → `[5000, 30000, 120000]`; throws naming the bad entry. An empty string: no retries. */
export function parseRetrySchedule(text: string): number[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(entry);
      if (!match) throw new Error(`AGENT_WEBHOOKS_RETRY_SCHEDULE: "${entry}" is not a duration (e.g. 500ms, 5s, 2m, 1h)`);
      return Math.round(Number(match[1]) * UNITS[match[2] ?? '']);
    });
}
