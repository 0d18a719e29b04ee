import { Component, ReadOnly, Timestamp, Type, type Static } from '../../../core';
import type { ContactAnalyzer } from '../entities';
import { BUILT_IN_FIELD_NAMES, STAGE_KEY_PATTERN, approvalFieldOfId } from './analyzer-targets';

const ANALYZER_ID_DESCRIPTION =
  'What the analyzer writes, by its prefix: `b_<built-in field>` (one of ' +
  BUILT_IN_FIELD_NAMES.map((name) => `\`${name}\``).join(', ') +
  '), `f_<custom field key>` (a contact field of this tenant), or `p_<pipeline stage key>` ' +
  `(\`${STAGE_KEY_PATTERN.source}\`: whether the contact reached that stage; approving sets \`pipeline_stage\`). Unique and immutable.`;

export const ContactAnalyzerSchema = Component(
  'ContactAnalyzer',
  Type.Object({
    analyzer_id: Type.String({ minLength: 1, maxLength: 200, description: ANALYZER_ID_DESCRIPTION }),
    name: Type.String({ maxLength: 200, description: 'How it is shown; default empty' }),
    instruction: Type.String({ minLength: 1, maxLength: 4000, description: 'What the model should extract or decide from each closed session of the contact' }),
    enabled: Type.Boolean({ description: 'Runs after each closed session of a contact; default true' }),
    auto_approve: Type.Boolean({ description: 'Its suggestions are approved (written) at once instead of waiting as pending approvals; default false' }),
    field: ReadOnly(Type.String({ description: 'The contact member it writes: a built-in member, `custom_fields.<key>` or `pipeline_stage`' })),
    created_at: ReadOnly(Timestamp()),
    updated_at: ReadOnly(Timestamp()),
  }),
);
export type ContactAnalyzerJson = Static<typeof ContactAnalyzerSchema>;

export const analyzerJson = (row: ContactAnalyzer): ContactAnalyzerJson => ({
  analyzer_id: row.analyzerId,
  name: row.name,
  instruction: row.instruction,
  enabled: row.enabled,
  auto_approve: row.autoApprove,
  field: approvalFieldOfId(row.analyzerId),
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});
