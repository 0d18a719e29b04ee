import { Component, ReadOnly, Timestamp, Type, Uuid, type Static, type TSchema } from '../../../core';
import { SESSION_MODES } from '../../conversations';
import { ANALYZERS, EVALUATION_MODES, SUCCESS_ANALYZER, type AnalyzerName } from './evaluate-values';

export const MAX_DESCRIPTION = 4000;
export const MAX_PROMPT = 20_000;
export const MAX_TIMEOUT_MINUTES = 10_080; // a week

const OneOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], description });

/**
 * The read schema and the write schema have the same members at every level; the
 * write schema makes each of them optional (a partial update merges into what is
 * stored, however deep the member) and still refuses unknown ones. Both are built
 * here from one description of the members, so they cannot drift apart.
 */
type Shape = 'read' | 'write';
const member = <T extends TSchema>(shape: Shape, schema: T) => (shape === 'write' ? Type.Optional(schema) : schema);

function analyzerSchema(shape: Shape, name: AnalyzerName) {
  const base = {
    enabled: member(shape, Type.Boolean({ description: 'Whether the analyzer runs on this block’s sessions (one model call each in `per_analyzer` mode)' })),
    description: member(shape, Type.String({ maxLength: MAX_DESCRIPTION, description: 'The instruction to the model; the analyzer emits one label per session' })),
  };
  if (name !== SUCCESS_ANALYZER) return Type.Object(base, { additionalProperties: false });
  return Type.Object(
    {
      ...base,
      prompt: member(
        shape,
        Type.String({ maxLength: MAX_PROMPT, description: 'What counts as success; the analyzer answers true or false. Empty: the verdict is recorded as null, not guessed' }),
      ),
    },
    { additionalProperties: false },
  );
}

function blockSchema(shape: Shape, channels: string) {
  return Type.Object(
    // Typed loosely (members as TSchema): the values it validates are typed by evaluate-values.ts.
    Object.fromEntries(ANALYZERS.map((name) => [name, member(shape, analyzerSchema(shape, name))])) as unknown as Record<AnalyzerName, TSchema>,
    { additionalProperties: false, description: `The analyzers run on ${channels} sessions` },
  );
}

function sessionizationSchema(shape: Shape) {
  return Type.Object(
    {
      session_mode: member(
        shape,
        OneOf(
          SESSION_MODES,
          '`sliding_timeout`: a text session closes after `timeout_minutes` of customer idleness, or when its conversation closes; ' +
            '`per_conversation`: one session per conversation, closed with it. A call’s session always ends with the call',
        ),
      ),
      timeout_minutes: member(shape, Type.Integer({ minimum: 1, maximum: MAX_TIMEOUT_MINUTES, description: 'Minutes of customer idleness that close a text session (1 to 10080)' })),
      report_language: member(shape, Type.String({ minLength: 1, maxLength: 35, description: 'Language of the session summary, e.g. a BCP 47 tag such as `en` or `es-ES`' })),
      summary_prompt: member(shape, Type.String({ maxLength: MAX_PROMPT, description: 'Instruction for the human-readable session summary, written in `report_language`; empty: no summary' })),
    },
    { additionalProperties: false, description: 'How conversations are cut into sessions, and the summary of each' },
  );
}

function valueMembers(shape: Shape) {
  return {
    is_active: member(shape, Type.Boolean({ description: '`false` disables every analyzer and the summary for the agents these settings apply to' })),
    mode: member(
      shape,
      OneOf(
        EVALUATION_MODES,
        'Cost option beyond the spec. `per_analyzer` (the spec’s): one model call per enabled analyzer, plus one for the summary; ' +
          '`batched`: one structured-output call answering every enabled analyzer and the summary together',
      ),
    ),
    sessionization: member(shape, sessionizationSchema(shape)),
    text: member(shape, blockSchema(shape, 'text (sms, chatapp, social, chat)')),
    voice: member(shape, blockSchema(shape, 'voice (voice, chatapp_call)')),
  };
}

const Source = OneOf(['default', 'agent'] as const, '`default`: the tenant-wide default; `agent`: the agent’s own override');
const NullableTimestamp = Type.Union([Timestamp(), Type.Null()], { description: 'ISO 8601 UTC; null for a default that was never saved' });

const readOnlyMembers = {
  agent_uuid: ReadOnly(Type.Union([Uuid(), Type.Null()], { description: 'The agent of an override; null for the default' })),
  is_default: ReadOnly(Type.Boolean({ description: 'Whether these are the tenant-wide default settings' })),
  source: ReadOnly(Source),
};
const timestamps = { created_at: ReadOnly(NullableTimestamp), updated_at: ReadOnly(NullableTimestamp) };

const { is_active, ...otherValues } = valueMembers('read');

/** Evaluate settings as every route (and `settings.evaluation` on an agent) returns them. */
export const EvaluateSettingsSchema = Component(
  'EvaluateSettings',
  Type.Object(
    { agent_uuid: readOnlyMembers.agent_uuid, is_default: readOnlyMembers.is_default, is_active, source: readOnlyMembers.source, ...otherValues, ...timestamps },
    { additionalProperties: false, description: 'Evaluate settings: the tenant-wide default or one agent’s override' },
  ),
);
export type EvaluateSettingsJson = Static<typeof EvaluateSettingsSchema>;

/**
 * A partial update, merged deeply into the stored settings: members left out keep
 * their value at every level. Read-only members are ignored; unknown ones refused.
 */
export const EvaluateSettingsWrite = Type.Object(
  { ...readOnlyMembers, ...valueMembers('write'), ...timestamps },
  {
    additionalProperties: false,
    examples: [
      {
        sessionization: { timeout_minutes: 15 },
        text: { sentiment_analyzer: { enabled: true }, success_evaluation_prompt: { enabled: true, prompt: 'The customer booked an appointment.' } },
      },
    ],
  },
);
export type EvaluateSettingsPatch = Static<typeof EvaluateSettingsWrite>;
