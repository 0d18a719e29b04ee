import type { EntityManager } from '@mikro-orm/postgresql';
import { newUuid } from '../../../core';
import type { Channel } from '../../conversations';
import type { EvaluationStatus } from '../entities';
import type { EvaluationOutcome } from './evaluation-outcome';
import type { EvaluationPlan } from './evaluation-plan';

export interface EvaluatedSession {
  uuid: string;
  conversation_uuid: string;
  agent_uuid: string;
  channel: Channel;
}

/** A failed call anywhere makes the whole record `failed` (the successful answers are kept beside the errors). */
export const statusOf = (outcome: EvaluationOutcome): EvaluationStatus => (outcome.failures.length > 0 ? 'failed' : 'completed');

/**
 * Writes the session's one evaluation record: the first run inserts it, a later one
 * (a rerun) replaces its content and counts the run, keeping its uuid and
 * `created_at`. One statement, so two runs of one session racing cannot make two
 * records. Raw SQL bypasses the tenant filter: the tenant is given. Returns the
 * record's uuid.
 */
export async function saveEvaluation(em: EntityManager, tenantUuid: string, session: EvaluatedSession, plan: EvaluationPlan, outcome: EvaluationOutcome): Promise<string> {
  const now = new Date();
  const rows: Array<{ uuid: string }> = await em.getConnection().execute(
    `insert into "evaluations" ("uuid", "tenant_uuid", "created_at", "updated_at", "session_uuid", "conversation_uuid", "agent_uuid", "channel", ` +
      `"settings_source", "block", "mode", "status", "results", "success", "success_reason", "summary", "errors", "llm_calls", "tokens", "runs") ` +
      `values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, cast(? as jsonb), ?, ?, ?, cast(? as jsonb), ?, ?, 1) ` +
      `on conflict ("tenant_uuid", "session_uuid") do update set "updated_at" = excluded."updated_at", "conversation_uuid" = excluded."conversation_uuid", ` +
      `"agent_uuid" = excluded."agent_uuid", "channel" = excluded."channel", "settings_source" = excluded."settings_source", "block" = excluded."block", ` +
      `"mode" = excluded."mode", "status" = excluded."status", "results" = excluded."results", "success" = excluded."success", ` +
      `"success_reason" = excluded."success_reason", "summary" = excluded."summary", "errors" = excluded."errors", "llm_calls" = excluded."llm_calls", ` +
      `"tokens" = excluded."tokens", "runs" = "evaluations"."runs" + 1 ` +
      `returning "uuid"`,
    [
      newUuid(),
      tenantUuid,
      now,
      now,
      session.uuid,
      session.conversation_uuid,
      session.agent_uuid,
      session.channel,
      plan.settingsSource,
      plan.block,
      plan.mode,
      statusOf(outcome),
      JSON.stringify(outcome.results),
      outcome.success,
      outcome.successReason,
      outcome.summary,
      JSON.stringify(outcome.errors),
      outcome.llmCalls,
      outcome.tokens,
    ],
    'all',
    em.getTransactionContext(),
  );
  return rows[0].uuid;
}
