import { Type } from '../../core';
import { Options } from '../flows';

/** The input members the Zoho CRM actions and trigger share, each tied to its option list. */

/** A choice among fixed texts, as a JSON Schema `enum`. */
export const OneOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], description });

// API names are letters, digits and underscores (Zoho's rule for custom ones too); checked so nothing else reaches a URL.
const API_NAME = '^[A-Za-z][A-Za-z0-9_]*$';

export const ModuleName = Options(
  'modules',
  {},
  Type.String({ minLength: 1, maxLength: 100, pattern: API_NAME, description: 'The module, by API name (Leads, Contacts, Accounts, Deals, a custom module)' }),
);

/** A field of the input's `module`, picked from the `module_fields` list of that module. */
export const FieldOf = (description: string) =>
  Options('module_fields', { params: { module: '{{config.module}}' } }, Type.String({ minLength: 1, maxLength: 100, pattern: API_NAME, description }));

/** A record of the input's `module`: Zoho ids are long numbers, written as strings. */
export const RecordIdOf = (description: string) =>
  Options('records', { params: { module: '{{config.module}}' } }, Type.String({ minLength: 1, maxLength: 30, pattern: '^[0-9]+$', description }));

export const Fields = (description: string) =>
  Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.Unknown(), {
    minProperties: 1,
    description:
      `${description} By field API name (see the \`module_fields\` list): \`{"Last_Name": "Smith", "Email": "a@example.com"}\`. ` +
      'Values as Zoho takes them: text, numbers, true or false, dates as YYYY-MM-DD, date-times as ISO 8601, a lookup as `{"id": "..."}`, a multi-select as an array.',
  });
