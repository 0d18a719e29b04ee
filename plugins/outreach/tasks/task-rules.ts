import { isHttpUrl, type FieldErrors } from '../../../core';
import type { RetryStrategy } from '../entities/task.entity';
import type { TaskExecutor } from './task-executors';
import { TASK_DATA_SECRET } from './task-view';
import { isTimeZone } from './zoned-time';

/**
 * The rules of a task's members that a JSON schema cannot say, as pure checks that add
 * to one FieldErrors, so a request learns every problem at once.
 */

const MAX_URL_LENGTH = 2048;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const add = (errors: FieldErrors, path: string, message: string) => void (errors[path] ??= []).push(message);

/** Which plugin brings the executor of each type that is not built in. */
const CAPABILITIES: Record<string, string> = {
  make_call: 'a calls plugin',
  send_message: 'a channels plugin',
  send_email: 'an email channel plugin',
  appointment: 'the appointments-outreach plugin (with appointments and channels)',
  survey: 'a surveys plugin',
  notification: 'a notifications plugin',
};

/** Why tasks of a type with no executor are refused (tasks, and campaigns that would make them), naming what would run them. */
export const missingExecutor = (type: string) => `${type} tasks need ${CAPABILITIES[type] ?? 'a plugin that runs them'}; none is installed`;

/** A type must have an executor: no task is created that could never run. */
export function checkExecutor(type: string, executors: readonly TaskExecutor[], errors: FieldErrors): void {
  if (executors.some((executor) => executor.type === type)) return;
  add(errors, 'type', missingExecutor(type));
}

export interface RetrySettings {
  maxRetryAttempts: number;
  retryStrategy: RetryStrategy;
  retrySchedule: readonly number[] | null;
}

/** `custom` needs its schedule (one entry per retry at most); the other strategies take none. */
export function checkRetrySettings(settings: RetrySettings, errors: FieldErrors): void {
  const { retryStrategy, retrySchedule, maxRetryAttempts } = settings;
  if (retryStrategy === 'custom') {
    if (!retrySchedule) add(errors, 'retry_schedule', 'is required by retry_strategy custom (minutes before each retry)');
    else if (retrySchedule.length > maxRetryAttempts) add(errors, 'retry_schedule', `has ${retrySchedule.length} entries but max_retry_attempts is ${maxRetryAttempts}`);
  } else if (retrySchedule) {
    add(errors, 'retry_schedule', `is only taken with retry_strategy custom (this task's is ${retryStrategy})`);
  }
}

/** `task_data` as sent (its write-only `secret` too), per type and per message type; `task_data` of other types is free. */
export function checkTaskData(type: string, taskData: Record<string, unknown>, errors: FieldErrors): void {
  const { message_type: messageType, template_uuid: templateUuid } = taskData;
  if (messageType === 'chatapp_template') {
    if (templateUuid === undefined || templateUuid === null) add(errors, 'task_data.template_uuid', 'is required when message_type is chatapp_template');
    else if (typeof templateUuid !== 'string' || !UUID.test(templateUuid)) add(errors, 'task_data.template_uuid', 'must be a valid uuid');
  } else if (templateUuid !== undefined && templateUuid !== null) {
    add(errors, 'task_data.message_type', 'must be chatapp_template when template_uuid is given');
  }
  const secret = taskData[TASK_DATA_SECRET];
  if (secret !== undefined && secret !== null && (typeof secret !== 'string' || secret.length === 0 || secret.length > 1000)) {
    add(errors, `task_data.${TASK_DATA_SECRET}`, 'must be a string of 1 to 1000 characters');
  }
  if (type === 'webhook') {
    const url = taskData.url;
    if (url === undefined || url === null) add(errors, 'task_data.url', 'is required for webhook tasks');
    else if (typeof url !== 'string' || url.length > MAX_URL_LENGTH || !isHttpUrl(url)) add(errors, 'task_data.url', 'must be an http or https URL');
  }
}

export function checkTimeZone(timezone: string | null | undefined, errors: FieldErrors): void {
  if (timezone !== undefined && timezone !== null && !isTimeZone(timezone)) add(errors, 'timezone', 'must be an IANA time zone such as Europe/Madrid');
}
