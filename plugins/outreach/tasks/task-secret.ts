import { defineSecretColumn, type SecretColumn, type SecretsService } from '../../../core';
import type { Task } from '../entities/task.entity';
import { TASK_DATA_HAS_SECRET, TASK_DATA_SECRET } from './task-view';

/**
 * A task's write-only `task_data.secret` (the webhook executor signs with it) is kept
 * out of `task_data`, sealed for the tenant in `tasks.webhook_secret`. Declared for
 * `switchboard secrets rotate`; `entity` and `field` are bound into every stored value:
 * never change them.
 */
export const taskSecretColumn = defineSecretColumn({ table: 'tasks', column: 'webhook_secret', entity: 'outreach_task', field: 'webhook_secret' });

/** `task_data` as a client sent it (already checked), split into what is stored as data and what it says of the secret. */
export interface SentTaskData {
  data: Record<string, unknown>;
  /** A new secret; null removes the stored one; undefined (not sent) keeps it. */
  secret: string | null | undefined;
}

/** `has_secret` (what responses show) is dropped, so what a client read can be sent back. */
export function splitTaskData(sent: Record<string, unknown>): SentTaskData {
  const { [TASK_DATA_HAS_SECRET]: _shown, [TASK_DATA_SECRET]: secret, ...data } = sent;
  return { data, secret: secret as string | null | undefined };
}

/** The sealed value a write leaves in `column`: the stored one when no secret was sent, none for null, else the new one sealed for the tenant. */
export function sealSentSecret(secrets: SecretsService, column: SecretColumn, tenantUuid: string, sent: string | null | undefined, stored: string | null): string | null {
  if (sent === undefined) return stored;
  return sent === null ? null : secrets.encrypt(sent, column.context(tenantUuid));
}

/** The task's secret in plain text, for the attempt about to use it; null when it has none. */
export function openTaskSecret(secrets: SecretsService, task: Pick<Task, 'tenantUuid' | 'webhookSecret'>): string | null {
  return task.webhookSecret === null ? null : secrets.decrypt(task.webhookSecret, taskSecretColumn.context(task.tenantUuid));
}
