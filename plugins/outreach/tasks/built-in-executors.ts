import { EgressError } from '../../../core';
import type { TaskExecutor } from './task-executors';
import { TASK_TOPICS, type TaskEvent } from './task-topics';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook } from './webhook-signature';

/** What a webhook task keeps of the answer. */
const MAX_KEPT_RESPONSE = 10_000;

/**
 * `webhook`: POSTs the task (its JSON as the API returns it) to `task_data.url` through
 * egress (so its SSRF rules apply), redirects not followed. With `task_data.secret`,
 * the call is signed: `X-Switchboard-Timestamp` (Unix seconds) and
 * `X-Switchboard-Signature: sha256=<hex>`, the HMAC-SHA256 of `<timestamp>.<body>`
 * with the secret. `Idempotency-Key: <task uuid>:<attempt>` lets a receiver drop a
 * repeated delivery. One call per attempt (egress does not retry it): a 2xx answer
 * completes the task (result `{status, body}`); anything else, or no answer, fails the
 * attempt, retried per the task's strategy.
 */
const webhook: TaskExecutor = {
  type: 'webhook',
  description: 'POSTs the task as JSON to task_data.url, signed with task_data.secret when given',
  async execute({ task, attempt, egress, openSecret }) {
    const url = String(task.task_data.url);
    // Not in the task's JSON (it is never shown): stored sealed, opened for this call only.
    const secret = openSecret();
    const body = JSON.stringify(task);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-switchboard-event': 'task',
      'x-switchboard-task': task.uuid,
      'x-switchboard-attempt': String(attempt),
      [TIMESTAMP_HEADER]: timestamp,
    };
    if (secret !== null) headers[SIGNATURE_HEADER] = signWebhook(secret, timestamp, body);
    let response;
    try {
      // No retries inside an attempt: the task's own retry strategy decides when to call again.
      response = await egress.request(url, { method: 'POST', headers, body, maxRedirects: 0, retries: 0, idempotencyKey: `${task.uuid}:${attempt}` });
    } catch (error) {
      throw new Error(`the webhook could not be called: ${error instanceof EgressError ? error.message : String(error)}`);
    }
    const text = response.text();
    if (response.status < 200 || response.status >= 300) throw new Error(`the webhook answered ${response.status}: ${text.slice(0, 300)}`);
    return { status: response.status, body: parsed(text.slice(0, MAX_KEPT_RESPONSE)) };
  },
};

function parsed(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** An executor that hands the task to flows: it publishes `topic` with `{task}`; result `{event_id}`. */
const eventExecutor = (type: string, topic: string, description: string): TaskExecutor => ({
  type,
  description,
  async execute({ task, bus }) {
    const event: TaskEvent = { task };
    return { event_id: await bus.publish(topic, event) };
  },
});

export const builtInExecutors: TaskExecutor[] = [
  webhook,
  eventExecutor('follow_up', TASK_TOPICS.followUp, `Publishes ${TASK_TOPICS.followUp} {task} for flows to act on`),
  eventExecutor('custom', TASK_TOPICS.custom, `Publishes ${TASK_TOPICS.custom} {task} for flows to act on`),
];
