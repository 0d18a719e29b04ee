import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import {
  ConflictError,
  DataEnvelope,
  NotFoundError,
  PageQuery,
  ResourceId,
  Type,
  Uuid,
  ValidationError,
  defineRoute,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
} from '../../../core';
import type { ContactsSettings } from '../contacts-config';
import { Contact, ContactApproval } from '../entities';
import { applyApproval } from './apply-approval';
import { ApprovalStatusSchema, ContactApprovalSchema, approvalJson } from './approval-view';

const tags = ['contacts'];
export const APPROVAL_NOT_FOUND = 'Contact approval not found';

const ApprovalParams = Type.Object({ uuid: ResourceId('contacts.approval', 'The approval') });

const ApprovalListQuery = PageQuery({
  status: Type.Optional(ApprovalStatusSchema),
  contact_uuid: Type.Optional(Uuid({ description: 'Only this contact’s approvals' })),
  analyzer_id: Type.Optional(Type.String({ maxLength: 200, description: 'Only this analyzer’s approvals' })),
});

/**
 * The approval and its contact, both locked until the transaction ends, in the order
 * the session consumer locks them too (contact, then its approvals), so a decision
 * and a new suggestion for the same contact queue instead of deadlocking. An approval
 * that is no longer pending is a 409.
 */
async function lockPending(em: EntityManager, uuid: string): Promise<{ approval: ContactApproval; contact: Contact }> {
  const found = await em.findOne(ContactApproval, { uuid });
  if (!found) throw new NotFoundError(APPROVAL_NOT_FOUND);
  const contact = await em.findOne(Contact, { uuid: found.contactUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  // Superseded (deleted) or its contact deleted while we waited.
  const approval = contact && (await em.findOne(ContactApproval, { uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true }));
  if (!contact || !approval) throw new NotFoundError(APPROVAL_NOT_FOUND);
  if (approval.status !== 'pending') throw new ConflictError(`Contact approval is already ${approval.status}`);
  return { approval, contact };
}

/** Contact approvals: list, read, approve (writes the field), reject. */
export const approvalRoutes = (settings: ContactsSettings): AnyRoute[] => [listApprovals, readApproval, approveApproval(settings), rejectApproval];

const listApprovals = listRoute({
  path: '/api/v1/contact-approvals',
  summary: 'List contact approvals, newest first',
  description:
    'The contact field updates the contact analyzers suggested from closed sessions. Filters combine: `status`, `contact_uuid`, `analyzer_id`. ' +
    'A contact has at most one pending approval per field: a newer suggestion replaces the pending one.',
  tags,
  query: ApprovalListQuery,
  item: ContactApprovalSchema,
  page: async ({ query, em }) => {
    const where = {
      ...(query.status ? { status: query.status as ContactApproval['status'] } : {}),
      ...(query.contact_uuid ? { contactUuid: query.contact_uuid } : {}),
      ...(query.analyzer_id ? { analyzerId: query.analyzer_id } : {}),
    };
    const [rows, total] = await em.findAndCount(ContactApproval, where, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
    return [rows.map(approvalJson), total];
  },
});

const readApproval = readRoute({
  path: '/api/v1/contact-approvals/:uuid',
  summary: 'Read a contact approval',
  tags,
  params: ApprovalParams,
  resource: ContactApprovalSchema,
  read: async ({ params, em }) => {
    const approval = await em.findOne(ContactApproval, { uuid: params.uuid });
    if (!approval) throw new NotFoundError(APPROVAL_NOT_FOUND);
    return approvalJson(approval);
  },
});

const approveApproval = (settings: ContactsSettings) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/contact-approvals/:uuid/approve',
    summary: 'Approve a contact approval: write the field',
    description:
      'Writes `proposed_value` into the contact’s `field` (a built-in member, `custom_fields.<key>` checked against the field’s type, or `pipeline_stage`) ' +
      'and marks the approval `approved`. 409 when it is not pending, when its custom field no longer exists, or when another contact already has the phone number ' +
      'or email; 422 (at `proposed_value`) when the value does not suit the field. Nothing is written then.',
    tags,
    params: ApprovalParams,
    errors: [404, 409, 422],
    response: DataEnvelope(ContactApprovalSchema),
    handler: async ({ params, em }) => {
      const { approval, contact } = await lockPending(em, params.uuid);
      const outcome = await applyApproval(em, contact, approval, settings);
      if (!outcome.ok) {
        if (outcome.status === 409) throw new ConflictError(`Contact approval cannot be applied: ${outcome.problem}`);
        throw new ValidationError({ proposed_value: [outcome.problem] });
      }
      approval.status = 'approved';
      approval.decidedAt = new Date();
      try {
        await em.flush();
      } catch (error) {
        // Another request gave the same phone or email to another contact meanwhile.
        if (error instanceof UniqueConstraintViolationException) throw new ConflictError(`Contact approval cannot be applied: another contact already has this ${approval.field}`);
        throw error;
      }
      return { data: approvalJson(approval) };
    },
  });

const rejectApproval = defineRoute({
  method: 'POST',
  path: '/api/v1/contact-approvals/:uuid/reject',
  summary: 'Reject a contact approval',
  description: 'Marks it `rejected`; the contact is not changed. 409 when it is not pending.',
  tags,
  params: ApprovalParams,
  errors: [404, 409],
  response: DataEnvelope(ContactApprovalSchema),
  handler: async ({ params, em }) => {
    const { approval } = await lockPending(em, params.uuid);
    approval.status = 'rejected';
    approval.decidedAt = new Date();
    await em.flush();
    return { data: approvalJson(approval) };
  },
});
