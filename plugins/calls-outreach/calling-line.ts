import type { FieldErrors } from '../../core';
import { VOICEMAIL_OUTCOMES } from './topics';

/** The calls plugin's reasons an agent cannot call, at a task body's paths (`from` is `task_data.from`). */
export function atTaskPaths(problems: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(problems).map(([path, messages]) => [path === 'from' ? 'task_data.from' : path, messages]));
}

const add = (errors: FieldErrors, path: string, message: string) => void (errors[path] ??= []).push(message);

/** `task_data` of a make_call task: `from` (a number of the agent) and `voicemail` are optional. */
export function callDataErrors(taskData: Record<string, unknown>): FieldErrors {
  const errors: FieldErrors = {};
  const { from, voicemail } = taskData;
  if (from !== undefined && from !== null && (typeof from !== 'string' || !/^\+[1-9]\d{6,14}$/.test(from))) add(errors, 'task_data.from', 'must be an E.164 number of the agent, such as +14155550100');
  if (voicemail !== undefined && voicemail !== null && !(VOICEMAIL_OUTCOMES as readonly unknown[]).includes(voicemail)) add(errors, 'task_data.voicemail', `must be one of ${VOICEMAIL_OUTCOMES.join(', ')}`);
  return errors;
}

/** Why outreach calls cannot be placed on this server at all. */
export const PUBLIC_BASE_URL_REQUIRED =
  'make_call tasks need PUBLIC_BASE_URL (the channels plugin’s publicBaseUrl) to be set: a task runs in the background, with no request whose origin the provider could call back';
