import type { EntityManager } from '@mikro-orm/postgresql';
import type { FieldErrors } from '../../../core';
import type { AgentDirectory } from '../../agents';
import type { TaskExecutor } from '../tasks/task-executors';
import { checkTaskData, missingExecutor } from '../tasks/task-rules';
import { splitTaskData, type SentTaskData } from '../tasks/task-secret';
import { checkRuleUuids } from './campaign-rules';
import type { CampaignsRuntime } from './campaigns-runtime';

/**
 * What the schema cannot check of a campaign's members, for those given: a 422 at each
 * member's path. `task_data` is checked with its task type where the campaign is known
 * (checkCampaignTaskData).
 */
export async function checkCampaignMembers(
  em: EntityManager,
  tenantUuid: string,
  { agents, taskTypes }: { agents: AgentDirectory; taskTypes: ReadonlySet<string> },
  body: { name?: string; agent_uuid?: string; task_type?: string; rule_uuids?: readonly string[] },
): Promise<FieldErrors> {
  const problems: FieldErrors = {};
  if (body.name !== undefined && body.name.trim() === '') problems.name = ['must not be empty'];
  if (body.agent_uuid !== undefined && !(await agents.exists(body.agent_uuid))) problems.agent_uuid = ['is not an agent of this tenant'];
  if (body.task_type !== undefined && !taskTypes.has(body.task_type)) problems.task_type = [missingExecutor(body.task_type)];
  if (body.rule_uuids !== undefined) Object.assign(problems, await checkRuleUuids(em, tenantUuid, body.rule_uuids));
  return problems;
}

/**
 * The campaign's task data as its tasks will carry it, checked by the tasks' own rules
 * for its task type (a chatapp template's `template_uuid`, a webhook's `url`), so an
 * activation never makes tasks the task API would refuse. As for a task, `has_secret`
 * (what responses show) is dropped and the write-only `secret` taken out, to be sealed
 * apart (campaign-secret.ts).
 */
export function campaignTaskData(taskType: string, sent: Record<string, unknown>, problems: FieldErrors): SentTaskData {
  checkTaskData(taskType, sent, problems);
  return splitTaskData(sent);
}

/**
 * The campaign's task data through its executor's own `validate` (a chatapp template's
 * variables against the template, a call's `from`), as a task's at creation, so an
 * activation never makes tasks the task API would refuse. A campaign has no contact yet
 * and its agent is checked above: only the problems at `task_data.*` paths are its.
 */
export async function checkExecutorTaskData(
  em: EntityManager,
  { executors, executorDeps }: Pick<CampaignsRuntime, 'executors' | 'executorDeps'>,
  taskType: string,
  agentUuid: string,
  taskData: Record<string, unknown>,
  problems: FieldErrors,
): Promise<void> {
  const executor: TaskExecutor | undefined = executors.find((candidate) => candidate.type === taskType);
  if (!executor?.validate) return;
  const context = { agent_uuid: agentUuid, contact_uuid: null, contact: null, deps: executor.deps ? executorDeps.of(executor) : {} };
  for (const [path, messages] of Object.entries(await executor.validate(em, taskData, context))) {
    if (path.startsWith('task_data.')) (problems[path] ??= []).push(...messages);
  }
}
