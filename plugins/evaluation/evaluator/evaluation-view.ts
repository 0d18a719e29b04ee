import { Component, Timestamp, Type, Uuid, type Static } from '../../../core';
import { ChannelSchema } from '../../conversations';
import type { Evaluation } from '../entities';
import { ANALYZERS, EVALUATION_MODES } from '../settings/evaluate-values';

const literals = <T extends readonly string[]>(values: T, description: string) =>
  Type.Union(values.map((value) => Type.Literal(value)), { description }) as unknown as ReturnType<typeof Type.String>;

export const EVALUATION_STATUSES = ['completed', 'failed'] as const;
export const EvaluationStatusSchema = literals(EVALUATION_STATUSES, '`completed`: every call answered; `failed`: some failed (their errors are in `results` and `errors`)');
export const AnalyzerNameSchema = literals(ANALYZERS, 'An analyzer of the evaluate settings');

const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const AnalyzerResultSchema = Type.Object(
  {
    label: NullableString('The analyzer’s label, trimmed and lowercased (`true`/`false` for `success_evaluation_prompt`); null when it failed or did not run'),
    raw: NullableString('The model’s answer as it came (in `batched` mode, this analyzer’s member of it)'),
    error: Type.Optional(Type.String({ description: 'Why there is no label' })),
  },
  { additionalProperties: false },
);

export const EvaluationSchema = Component(
  'Evaluation',
  Type.Object(
    {
      uuid: Uuid(),
      session_uuid: Uuid(),
      conversation_uuid: Uuid(),
      agent_uuid: Uuid(),
      channel: ChannelSchema,
      settings_source: literals(['default', 'agent'] as const, 'Whose evaluate settings ran: the tenant’s `default` or the agent’s override'),
      block: literals(['text', 'voice'] as const, 'The analyzer block that ran: `voice` for calls (`voice`, `chatapp_call`), `text` otherwise'),
      mode: literals(EVALUATION_MODES, '`per_analyzer`: one model call per analyzer and one for the summary; `batched`: one call for everything'),
      status: EvaluationStatusSchema,
      results: Type.Object(Object.fromEntries(ANALYZERS.map((name) => [name, Type.Optional(AnalyzerResultSchema)])), {
        additionalProperties: false,
        description: 'Each enabled analyzer’s result, by name',
      }),
      success: Type.Union([Type.Boolean(), Type.Null()], { description: 'The success verdict; null when it was not asked, had no prompt, or failed' }),
      success_reason: NullableString('The model’s reason for the verdict, or why there is none'),
      summary: NullableString('The session’s summary in `sessionization.report_language`; null without a summary prompt or when it failed'),
      errors: Type.Array(Type.String(), { description: 'Failures not tied to one analyzer (the summary’s)' }),
      llm_calls: Type.Integer({ description: 'Model calls made by the last run' }),
      tokens: Type.Integer({ description: 'Tokens the model reported for the last run (0 when it reports none)' }),
      runs: Type.Integer({ description: 'How many times the session was evaluated: 1, then one more per rerun' }),
      created_at: Timestamp(),
      updated_at: Timestamp(),
    },
    { description: 'The evaluation record of one closed session' },
  ),
);
export type EvaluationJson = Static<typeof EvaluationSchema>;

export const evaluationJson = (row: Evaluation): EvaluationJson => ({
  uuid: row.uuid,
  session_uuid: row.sessionUuid,
  conversation_uuid: row.conversationUuid,
  agent_uuid: row.agentUuid,
  channel: row.channel,
  settings_source: row.settingsSource,
  block: row.block,
  mode: row.mode,
  status: row.status,
  results: row.results,
  success: row.success,
  success_reason: row.successReason,
  summary: row.summary,
  errors: row.errors,
  llm_calls: row.llmCalls,
  tokens: row.tokens,
  runs: row.runs,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});
