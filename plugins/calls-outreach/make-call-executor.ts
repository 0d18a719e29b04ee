import type { EntityManager } from '@mikro-orm/postgresql';
import type { FieldErrors } from '../../core';
import { pendingAttempt, type TaskExecutionContext, type TaskExecutor, type TaskValidationContext } from '../outreach';
import { PUBLIC_BASE_URL_REQUIRED, atTaskPaths, callDataErrors } from './calling-line';
import { makeCallDeps, type MakeCallDeps } from './deps';
import { CALL_TASK_TOPICS, type OverduePayload, type PlacePayload } from './topics';

/**
 * An attempt whose call has not said how it ended after this long fails (its callbacks
 * were lost): longer than any call the calls plugin lets run (its default
 * `max_call_duration_seconds` is 30 minutes) plus ringing.
 */
export const OVERDUE_AFTER_MS = 3 * 60 * 60 * 1000;

/** Checked when the task is created (outreach's 422): the server can be called back, the agent can call, the contact can be called. */
async function validate(_em: EntityManager, taskData: Record<string, unknown>, context: TaskValidationContext): Promise<FieldErrors> {
  const deps = context.deps as unknown as MakeCallDeps;
  const errors = callDataErrors(taskData);
  const merge = (more: FieldErrors) => Object.entries(more).forEach(([path, messages]) => (errors[path] ??= []).push(...messages));
  if (!deps.placing.publicBaseUrl) merge({ type: [PUBLIC_BASE_URL_REQUIRED] });
  // An unknown agent or contact is outreach's own 422; only existing ones are checked here.
  const line = await deps.placing.lineProblems(context.agent_uuid, errors['task_data.from'] ? undefined : (taskData.from as string | undefined) ?? undefined);
  if (line) merge(atTaskPaths(line));
  if (context.contact) {
    if (!context.contact.phone_number) merge({ 'contact.phone_number': ['is required for a make_call task: the number to call'] });
  } else if (context.contact_uuid) {
    const contact = (await deps.contacts.get([context.contact_uuid])).get(context.contact_uuid);
    if (contact && !contact.phone_number) merge({ contact_uuid: ['the contact has no phone_number to call'] });
  }
  return errors;
}

/**
 * One attempt: the same checks again (the agent or contact may have changed since the
 * task was made, and campaign tasks were never checked), then the call is handed to the
 * placing consumer in the attempt's transaction, since the provider must not be called
 * with the task's row locked; the task stays `in_progress` until the call ends.
 */
async function execute(context: TaskExecutionContext) {
  const deps = context.deps as unknown as MakeCallDeps;
  const { task, attempt, bus } = context;
  if (!deps.placing.publicBaseUrl) throw new Error(PUBLIC_BASE_URL_REQUIRED);
  const problems = await deps.placing.lineProblems(task.agent_uuid, typeof task.task_data.from === 'string' ? task.task_data.from : undefined);
  if (!problems) throw new Error('the task’s agent no longer exists');
  const first = Object.entries(atTaskPaths(problems))[0];
  if (first) throw new Error(`the agent cannot call: ${first[0]} ${first[1][0]}`);
  const contact = (await deps.contacts.get([task.contact_uuid])).get(task.contact_uuid);
  if (!contact) throw new Error('the task’s contact no longer exists');
  if (!contact.phone_number) throw new Error('the task’s contact has no phone_number to call');
  const place: PlacePayload = {
    task_uuid: task.uuid,
    attempt,
    agent_uuid: task.agent_uuid,
    contact_uuid: task.contact_uuid,
    to: contact.phone_number,
    from: typeof task.task_data.from === 'string' ? task.task_data.from : null,
    campaign_uuid: task.campaign_uuid ?? null,
    voicemail: task.task_data.voicemail === 'retry' ? 'retry' : 'complete',
  };
  await bus.publish(CALL_TASK_TOPICS.place, place);
  const overdue: OverduePayload = { task_uuid: task.uuid, attempt };
  await bus.publish(CALL_TASK_TOPICS.overdue, overdue, { delay: OVERDUE_AFTER_MS });
  return pendingAttempt();
}

/**
 * `make_call`: calls the task's contact (their `phone_number`) from the agent's phone
 * line (`task_data.from`, else its first number that takes calls). The task completes
 * when the call ends answered (`completed`, `transferred`, `hangup_by_agent`,
 * `silence_timeout`, `max_duration`); `no_answer`, `busy` and `failed` fail the attempt,
 * retried per the task's strategy; `voicemail` completes it unless `task_data.voicemail`
 * (a campaign's `task_data` is copied onto its tasks) is `retry`.
 */
export const makeCallExecutor: TaskExecutor = {
  type: 'make_call',
  description:
    'Calls the contact from the agent’s phone line (task_data.from, else its first calling number); the call’s end settles the task ' +
    '(answered: completed; no_answer, busy, failed: retried; voicemail: completed, or retried with task_data.voicemail = retry). Needs PUBLIC_BASE_URL',
  deps: makeCallDeps,
  validate,
  execute,
};
