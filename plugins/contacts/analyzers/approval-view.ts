import { Component, Timestamp, Type, Uuid, type Static } from '../../../core';
import type { ContactApproval } from '../entities';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;

export const ApprovalStatusSchema = Type.Union(
  APPROVAL_STATUSES.map((status) => Type.Literal(status)),
  { description: '`pending` until a person approves (the field is written) or rejects it; auto-approved suggestions are `approved` at once' },
) as unknown as ReturnType<typeof Type.String>;

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

export const ContactApprovalSchema = Component(
  'ContactApproval',
  Type.Object({
    uuid: Uuid(),
    contact_uuid: Uuid({ description: 'The contact it would change' }),
    analyzer_id: Type.String({ description: 'The contact analyzer that suggested it' }),
    field: Type.String({ description: 'The contact member it writes: a built-in member (`company`), `custom_fields.<key>` or `pipeline_stage`' }),
    current_value: Type.Unknown({ description: 'The contact’s value when it was suggested (null: unset)' }),
    proposed_value: Type.Unknown({ description: 'The value it writes' }),
    session_uuid: nullable(Uuid(), 'The session it was learned from'),
    reason: Type.String({ description: 'Why the model suggested it (and, when auto-approval could not write it, why not)' }),
    status: ApprovalStatusSchema,
    decided_at: nullable(Timestamp(), 'When it was approved or rejected'),
    created_at: Timestamp(),
  }),
);
export type ContactApprovalJson = Static<typeof ContactApprovalSchema>;

export const approvalJson = (row: ContactApproval): ContactApprovalJson => ({
  uuid: row.uuid,
  contact_uuid: row.contactUuid,
  analyzer_id: row.analyzerId,
  field: row.field,
  current_value: row.currentValue ?? null,
  proposed_value: row.proposedValue ?? null,
  session_uuid: row.sessionUuid,
  reason: row.reason,
  status: row.status,
  decided_at: row.decidedAt ? row.decidedAt.toISOString() : null,
  created_at: row.createdAt.toISOString(),
});
