import type { EntityManager } from '@mikro-orm/postgresql';
import type { ContactsSettings } from '../contacts-config';
import { Contact, ContactApproval, ContactField } from '../entities';
import { BUILT_IN_FIELD_NAMES, PIPELINE_STAGE_FIELD, type BuiltInField } from './analyzer-targets';
import { checkBuiltIn, checkCustom, checkStage, customKeyOf, writeValue, type ValueCheck } from './field-values';

/** Why an approval could not be written: 409 (the state of things refuses it) or 422 (the value does). */
export type ApplyOutcome = { ok: true; value: unknown } | { ok: false; status: 409 | 422; problem: string };

/** Members unique per tenant: writing one another contact has would break that. */
const UNIQUE_MEMBERS = { phone_number: 'phoneNumber', email: 'email' } as const;

/**
 * Checks an approval's proposed value for its field, as things are now, and writes it
 * into the contact when it passes: the custom field must still exist (409) and the
 * value must suit the field (422); a phone number or email another contact of the
 * tenant has is a 409. Nothing is written unless every check passes.
 */
export async function applyApproval(em: EntityManager, contact: Contact, approval: ContactApproval, settings: ContactsSettings): Promise<ApplyOutcome> {
  const { field } = approval;
  let check: ValueCheck;
  const key = customKeyOf(field);
  if (key !== null) {
    const definition = await em.findOne(ContactField, { key });
    if (!definition) return { ok: false, status: 409, problem: `the contact field "${key}" no longer exists` };
    check = checkCustom(definition.dataType, approval.proposedValue);
  } else if (field === PIPELINE_STAGE_FIELD) {
    check = checkStage(approval.proposedValue);
  } else if ((BUILT_IN_FIELD_NAMES as string[]).includes(field)) {
    check = checkBuiltIn(field as BuiltInField, approval.proposedValue, settings);
  } else {
    return { ok: false, status: 409, problem: `"${field}" is not a contact field an approval can write` };
  }
  if (!check.ok) return { ok: false, status: 422, problem: `${field} ${check.problem}` };

  const unique = UNIQUE_MEMBERS[field as keyof typeof UNIQUE_MEMBERS];
  if (unique) {
    const holder = await em.findOne(Contact, { [unique]: check.value, uuid: { $ne: contact.uuid } } as never, { fields: ['uuid'] });
    if (holder) return { ok: false, status: 409, problem: `another contact already has this ${field === 'email' ? 'email' : 'phone number'}` };
  }
  writeValue(contact, field, check.value);
  return { ok: true, value: check.value };
}
