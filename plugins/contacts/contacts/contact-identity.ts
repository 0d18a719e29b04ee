import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError } from '../../../core';
import { Contact } from '../entities';

/** The members that identify a contact within its tenant (each backed by a unique constraint). */
export type IdentityMember = 'phone_number' | 'email';

const CONSTRAINT_MEMBER: Record<string, IdentityMember> = {
  contacts_tenant_uuid_phone_number_unique: 'phone_number',
  contacts_tenant_uuid_email_unique: 'email',
};

export class DuplicateContactError extends ConflictError {
  constructor(member: IdentityMember, existingUuid?: string) {
    super(
      existingUuid
        ? `A contact with this ${member} already exists: ${existingUuid}`
        : `A contact with this ${member} already exists (written by a concurrent request)`,
    );
  }
}

/**
 * The identity member whose unique constraint `error` violated, from the ORM (a flush)
 * or from the driver (a raw statement); undefined for any other error.
 */
export function violatedIdentity(error: unknown): IdentityMember | undefined {
  const cause = error instanceof UniqueConstraintViolationException ? (error as { cause?: unknown }).cause ?? error : error;
  for (const candidate of [error, cause]) {
    const { code, constraint } = (candidate ?? {}) as { code?: string; constraint?: string };
    if (code === '23505' && constraint && CONSTRAINT_MEMBER[constraint]) return CONSTRAINT_MEMBER[constraint];
  }
  return undefined;
}

/**
 * 409 when another contact of the tenant already has this phone number or email: the
 * check a write makes before it writes, so the answer names the contact it collides
 * with. The unique constraints still decide when two writes race (see violatedIdentity).
 */
export async function assertIdentityFree(em: EntityManager, identity: { phoneNumber?: string | null; email?: string | null }, exceptUuid?: string): Promise<void> {
  const or = [
    ...(identity.phoneNumber ? [{ phoneNumber: identity.phoneNumber }] : []),
    ...(identity.email ? [{ email: identity.email }] : []),
  ];
  if (or.length === 0) return;
  const owners = await em.find(
    Contact,
    { $or: or, ...(exceptUuid ? { uuid: { $ne: exceptUuid } } : {}) },
    { fields: ['uuid', 'phoneNumber', 'email'], disableIdentityMap: true },
  );
  const byPhone = owners.find((owner) => identity.phoneNumber && owner.phoneNumber === identity.phoneNumber);
  if (byPhone) throw new DuplicateContactError('phone_number', byPhone.uuid);
  const byEmail = owners.find((owner) => identity.email && owner.email === identity.email);
  if (byEmail) throw new DuplicateContactError('email', byEmail.uuid);
}
