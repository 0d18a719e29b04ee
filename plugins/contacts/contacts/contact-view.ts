import { Component, ReadOnly, Timestamp, Type, Uuid } from '../../../core';
import type { ContactJson } from '../contact-directory';
import type { Contact } from '../entities';
import { EMAIL_MAX, LANGUAGE_MAX, TEXT_MAX } from './contact-members';

const Text = (description: string, maxLength = TEXT_MAX) => Type.Union([Type.String({ maxLength }), Type.Null()], { description });

/** The members of a contact a client writes, as the response and the request bodies share them. */
export const contactMembers = {
  name: Text('Given name'),
  surname: Text('Family name'),
  phone_number: Text(
    'E.164 (`+34612345678`), unique within the tenant. Written in any common format; a number without `+` and country code is read in the ' +
      'operator’s default country (`CONTACTS_DEFAULT_COUNTRY`) and refused when there is none. Invalid numbers are refused.',
    40,
  ),
  email: Text('Lower-cased; unique within the tenant', EMAIL_MAX),
  timezone: Text('IANA time zone (`Europe/Madrid`): outreach rules’ calling hours are read in it', 64),
  country_code: Text('ISO 3166-1 alpha-2, upper-cased (`ES`)', 2),
  primary_language: Text('The language to address the contact in (e.g. `es`, `en-GB`)', LANGUAGE_MAX),
  company: Text('Company'),
  city: Text('City'),
  lead_source: Text('Where the contact came from (e.g. `website`, `fair-2025`)'),
  pipeline_stage: Text('The contact’s stage in the tenant’s pipeline; contact analyzers (`p_` ids) propose changes to it'),
  custom_fields: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'Values of the tenant’s custom contact fields (`/api/v1/contact-fields`), by field key, each of its field’s type. ' +
      'Writing merges: keys sent replace their value, `null` removes one, keys not sent stay.',
  }),
  opted_out: Type.Boolean({ description: 'The contact asked not to be contacted: outreach creates no task for them' }),
};

export const ContactSchema = Component(
  'Contact',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      ...contactMembers,
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { description: 'A person agents reach: found by phone number or email, which are unique within the tenant' },
  ),
);

/** A contact's stored members, from the entity or from a row selected with camel-cased aliases. */
export type ContactFields = Pick<
  Contact,
  | 'uuid'
  | 'name'
  | 'surname'
  | 'phoneNumber'
  | 'email'
  | 'timezone'
  | 'countryCode'
  | 'primaryLanguage'
  | 'company'
  | 'city'
  | 'leadSource'
  | 'pipelineStage'
  | 'customFields'
  | 'optedOut'
  | 'createdAt'
  | 'updatedAt'
>;

export function contactJson(contact: ContactFields): ContactJson {
  return {
    uuid: contact.uuid,
    name: contact.name,
    surname: contact.surname,
    phone_number: contact.phoneNumber,
    email: contact.email,
    timezone: contact.timezone,
    country_code: contact.countryCode,
    primary_language: contact.primaryLanguage,
    company: contact.company,
    city: contact.city,
    lead_source: contact.leadSource,
    pipeline_stage: contact.pipelineStage,
    custom_fields: contact.customFields ?? {},
    opted_out: contact.optedOut,
    created_at: new Date(contact.createdAt).toISOString(),
    updated_at: new Date(contact.updatedAt).toISOString(),
  };
}
