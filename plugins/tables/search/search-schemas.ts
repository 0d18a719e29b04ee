import { Component, ResourceId, SuccessEnvelope, Timestamp, Type, Uuid, type Static } from '../../../core';

/** Longest search query. */
export const QUERY_MAX = 500;
/** Most hits one search returns, and how many it returns when not told. */
export const HITS_MAX = 50;
export const HITS_DEFAULT = 10;

export const ASSIGNMENT_MODES = ['knowledge_base', 'lookup'] as const;

const Mode = Type.Union(
  ASSIGNMENT_MODES.map((mode) => Type.Literal(mode)),
  { description: '`knowledge_base`: the agent searches the table by meaning; `lookup`: the agent looks rows up exactly' },
);

export const TableParams = Type.Object({ uuid: ResourceId('tables.table') });
export const AssignmentParams = Type.Object({ uuid: ResourceId('tables.table'), agent_uuid: ResourceId('agents.agent', 'The agent the table is assigned to') });
export const AgentParams = Type.Object({ uuid: ResourceId('agents.agent') });

const Query = Type.String({
  minLength: 1,
  maxLength: QUERY_MAX,
  description:
    'What to look for, as a person would type it: words (stemmed in the table’s language, typos forgiven), "a quoted phrase", -an exclusion, or. ' +
    `1 to ${QUERY_MAX} characters.`,
});
const Limit = Type.Integer({ minimum: 1, maximum: HITS_MAX, description: `How many hits at most, 1 to ${HITS_MAX} (default ${HITS_DEFAULT})` });

export const TableSearchBody = Type.Object(
  { query: Query, limit: Type.Optional(Limit) },
  { additionalProperties: false, examples: [{ query: 'refund policy', limit: 5 }] },
);

export const AgentSearchBody = Type.Object(
  { query: Query, limit: Type.Optional(Limit), mode: Type.Optional({ ...Mode, description: 'Only the tables assigned in this mode (default: every assigned table)' }) },
  { additionalProperties: false, examples: [{ query: 'opening hours on holidays', limit: 5, mode: 'knowledge_base' }] },
);

export const KnowledgeHitSchema = Component(
  'KnowledgeHit',
  Type.Object(
    {
      table_uuid: Uuid(),
      table_name: Type.String(),
      record_uuid: Uuid(),
      score: Type.Number({ description: 'Fused rank score (reciprocal rank fusion): higher is better; comparable within one answer only' }),
      values: Type.Record(Type.String(), Type.Unknown(), { description: 'The record’s values by column name (null for an empty cell)' }),
      snippet: Type.String({
        description: 'The record’s text around the best match, HTML-escaped, the matched words (or their corrected spellings) in `<b>...</b>`',
      }),
    },
    { description: 'A record a search found' },
  ),
);

export const SearchEnvelope = SuccessEnvelope(Type.Object({ items: Type.Array(KnowledgeHitSchema), count: Type.Integer({ minimum: 0 }) }));

export const IndexState = Type.Object({
  status: Type.String({ enum: ['current', 'stale', 'syncing'] }),
  indexed_at: Type.Union([Timestamp(), Type.Null()], { description: 'When a sync last finished; null before the first' }),
});

export const SyncEnvelope = SuccessEnvelope(Type.Object({ table_uuid: Uuid(), index: IndexState }));

export const AssignBody = Type.Object(
  { agent_uuid: ResourceId('agents.agent', 'An agent of this workspace'), mode: Mode },
  { additionalProperties: false, examples: [{ agent_uuid: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', mode: 'knowledge_base' }] },
);
export type AssignBodyJson = Static<typeof AssignBody>;

export const AssignmentEnvelope = SuccessEnvelope(Type.Object({ table_uuid: Uuid(), agent_uuid: Uuid(), mode: Mode }));

export const AssignmentSchema = Component(
  'DataTableAssignment',
  Type.Object(
    {
      table_uuid: Uuid(),
      agent_uuid: Uuid(),
      agent_name: Type.Union([Type.String(), Type.Null()], { description: 'The agent’s name; null for an agent being deleted' }),
      mode: Mode,
      created_at: Timestamp(),
      updated_at: Timestamp(),
    },
    { description: 'A table made available to an agent' },
  ),
);
export type AssignmentJson = Static<typeof AssignmentSchema>;

/** `settings.knowledge` of every agent: the tables assigned to it. */
export const KnowledgeSettingsSchema = Type.Object(
  {
    tables: Type.Array(
      Type.Object({ table_uuid: Uuid(), name: Type.String(), mode: Mode }),
      { description: 'Tables assigned to the agent, by name. Changed through `POST|DELETE /api/v1/data/{uuid}/assign`.' },
    ),
  },
  { description: 'The tables the agent uses as knowledge (read-only here)' },
);
