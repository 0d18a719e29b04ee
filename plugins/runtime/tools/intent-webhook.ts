import type { Egress } from '../../../core';

export interface IntentCall {
  url: string;
  authToken: string | null;
  body: { intent: string; parameters: Record<string, unknown>; conversation_uuid: string; agent_uuid: string; contact: unknown };
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Calls an intent's webhook (decisions-2.md §1) through the egress guard: a JSON answer
 * goes back to the model as it is, any other as its text. A non-2xx answer or a failure
 * throws, which the tool runner turns into an error result for the model.
 */
export async function callIntentWebhook(egress: Egress, call: IntentCall): Promise<unknown> {
  const response = await egress.request(call.url, {
    method: 'POST',
    headers: { ...(call.authToken ? { authorization: `Bearer ${call.authToken}` } : {}), accept: 'application/json, text/plain;q=0.9, */*;q=0.5' },
    body: call.body as unknown as Record<string, unknown>,
    timeoutMs: call.timeoutMs,
    // A POST that may have had an effect is not repeated behind the model's back.
    retries: 0,
    maxRedirects: 0,
    maxResponseBytes: 256 * 1024,
    signal: call.signal,
  });
  const text = response.text();
  if (response.status < 200 || response.status >= 300) throw new Error(`the webhook answered ${response.status}${text ? `: ${text.slice(0, 500)}` : ''}`);
  const type = String(response.headers['content-type'] ?? '');
  if (/json/i.test(type)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
