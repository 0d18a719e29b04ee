import { Type } from '../../core';
import { Options } from '../flows';

/** An object type: a standard one's name (`contacts`) or an object type id (`0-1`, a custom object's `2-123456`). */
export const Module = Options(
  'modules',
  {},
  Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$', description: 'The HubSpot object type (module): `contacts`, `companies`, `deals`, `tickets`, or a custom object’s type id' }),
);

/** HubSpot property names are internal names: letters, digits and underscores (`firstname`, `hs_lead_status`). */
const PROPERTY_NAME = '^[A-Za-z][A-Za-z0-9_.-]{0,99}$';

/** A property of the config's `module`, picked from `module_fields`. */
export const PropertyOf = (description: string) =>
  Options('module_fields', { params: { module: '{{config.module}}' } }, Type.String({ pattern: PROPERTY_NAME, description }));

export const RecordIdOf = (description: string) =>
  Options('records', { params: { module: '{{config.module}}' } }, Type.String({ minLength: 1, maxLength: 200, description }));

/** What HubSpot stores is text: numbers and booleans are sent as their text, null as '' (which clears the property). */
const PropertyValue = Type.Union([Type.String({ maxLength: 65_536 }), Type.Number(), Type.Boolean(), Type.Null()], {
  description: 'The value: text, a number or a boolean; null clears the property',
});

export const PropertyValues = Type.Record(Type.String({ pattern: PROPERTY_NAME }), PropertyValue, {
  minProperties: 1,
  maxProperties: 500,
  propertyNames: { pattern: PROPERTY_NAME },
  description:
    'Property values by internal property name (`email`, `firstname`, `dealstage`; see the `module_fields` option list). Dates are ISO 8601 dates or ' +
    'millisecond timestamps, enumerations the option’s internal value, multiple checkboxes values joined with `;`.',
});

/** The text HubSpot takes for each value. */
export const asHubSpotValues = (values: Record<string, string | number | boolean | null>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value === null ? '' : String(value)]));

/** Which properties to return with each record, besides those HubSpot returns by default. */
export const ReturnedProperties = Options(
  'module_fields',
  { params: { module: '{{config.module}}' } },
  Type.Array(Type.String({ pattern: PROPERTY_NAME }), {
    maxItems: 100,
    uniqueItems: true,
    description: 'The properties returned with each record (HubSpot returns a few default ones when absent)',
  }),
);
