import { Component, ReadOnly, Type, Uuid } from '../../../core';
import { Label } from './formats';

const Capabilities = Type.Object(
  { call: Type.Boolean(), sms: Type.Boolean(), chatapp: Type.Boolean(), chatapp_call: Type.Boolean() },
  { additionalProperties: false },
);

const E164 = Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'E.164, e.g. `+14155550100`; one agent per number in a tenant' });
const Status = Type.Union([Type.Literal('active'), Type.Literal('inactive')]);
const CountryCode = Type.Union([Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }), Type.Null()]);

export const PhoneNumber = Component('PhoneNumber', Type.Object(
  {
    phone_number_uuid: ReadOnly(Uuid()),
    number: E164,
    status: Status,
    country_code: CountryCode,
    type: Label('Kind of number', 'local'),
    capabilities: Capabilities,
  },
  { additionalProperties: false },
));

const CapabilitiesWrite = Type.Object(
  { call: Type.Optional(Type.Boolean()), sms: Type.Optional(Type.Boolean()), chatapp: Type.Optional(Type.Boolean()), chatapp_call: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, description: 'Members left out keep their value (on create: `call` true, the rest false)' },
);

const members = {
  phone_number_uuid: ReadOnly(Uuid()),
  status: Type.Optional(Status),
  country_code: Type.Optional(CountryCode),
  type: Type.Optional(PhoneNumber.properties.type),
  capabilities: Type.Optional(CapabilitiesWrite),
};

export const PhoneNumberWrite = Type.Object(
  { ...members, number: E164 },
  { additionalProperties: false, examples: [{ number: '+14155550100', country_code: 'US', capabilities: { call: true, sms: true } }] },
);

export const PhoneNumberPatch = Type.Object({ ...members, number: Type.Optional(E164) }, { additionalProperties: false });

export const defaultCapabilities = { call: true, sms: false, chatapp: false, chatapp_call: false };
