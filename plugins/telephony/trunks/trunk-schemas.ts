import { Component, ReadOnly, Timestamp, Type, Uuid, type Static } from '../../../core';
import { Normalizer, NormalizerWrite } from '../schemas/normalizer';
import { AddressListWrite, E164, Host, Name, Port, Status, Transport } from '../schemas/sip-values';

export const CODECS = ['PCMU', 'PCMA', 'G722', 'G729', 'opus'] as const;
export const DEFAULT_CODECS = ['PCMU', 'PCMA'];
export const MAX_TRUNK_NUMBERS = 100;

const Codecs = Type.Array(Type.Union(CODECS.map((codec) => Type.Literal(codec))), {
  minItems: 1,
  uniqueItems: true,
  description: `Audio codecs offered, in order of preference: ${CODECS.join(', ')} (default ${DEFAULT_CODECS.join(', ')})`,
});
const AgentUuid = Type.Union([Uuid(), Type.Null()], {
  description: 'The agent that answers the trunk’s numbers and calls out over it; null: none (the trunk is then `inactive`). When the agent has phone numbers, the trunk’s must be among them',
});
const TrunkStatus = { ...Status, description: '`active` needs an agent; an agent’s deletion, or `agent_uuid: null`, makes the trunk `inactive`' };
const PhoneNumber = Type.Union([E164, Type.Null()], {
  description: 'The trunk’s main number, E.164: always `phone_numbers[0]`. Sending it puts it first in `phone_numbers` (added when missing); null: no numbers',
});
const PhoneNumbers = Type.Array(E164, {
  maxItems: MAX_TRUNK_NUMBERS,
  uniqueItems: true,
  description: `Every number (DID) the carrier routes over the trunk, E.164, the main one first; at most ${MAX_TRUNK_NUMBERS}`,
});
const Username = Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], {
  description: 'The username of the trunk’s credential (digest authentication, like a Twilio credential list or a Telnyx credential connection); null: none',
});
const Password = Type.Union([Type.String({ minLength: 1, maxLength: 256 }), Type.Null()], {
  description: 'Write-only: the credential’s password; stored encrypted and never returned (see `has_password`). Needs a `username`. null: remove it',
});

export const Trunk = Component(
  'SipTrunkConnection',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      name: Name,
      status: TrunkStatus,
      agent_uuid: AgentUuid,
      agent_name: ReadOnly(Type.Union([Type.String(), Type.Null()], { description: 'The bound agent’s name' })),
      phone_number: PhoneNumber,
      phone_numbers: PhoneNumbers,
      gateway: Host('The carrier’s SIP signalling address calls are sent to (termination; Twilio’s `<name>.pstn.twilio.com`, Telnyx’s `sip.telnyx.com`)'),
      secondary_gateway: Type.Union([Host('A failover address, tried when `gateway` does not answer'), Type.Null()]),
      port: Port,
      transport: Transport,
      auth: Type.Object(
        { username: Username, has_password: ReadOnly(Type.Boolean({ description: 'Whether a password is stored (it is never returned)' })) },
        { additionalProperties: false, description: 'Credentials the trunk authenticates with, besides or instead of `allowed_ips`' },
      ),
      allowed_ips: Type.Array(Type.String(), { description: 'Addresses or CIDR blocks of the carrier’s signalling servers calls are accepted from (an IP access control list); empty: any' }),
      codecs: Codecs,
      normalizer: Normalizer,
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { additionalProperties: false },
  ),
);

const AuthWrite = Type.Object(
  { username: Type.Optional(Username), password: Type.Optional(Password), has_password: ReadOnly(Type.Boolean()) },
  { additionalProperties: false, description: 'Members left out keep their value' },
);

const writeMembers = {
  uuid: ReadOnly(Uuid()),
  name: Type.Optional(Name),
  status: Type.Optional(TrunkStatus),
  agent_uuid: Type.Optional(AgentUuid),
  agent_name: ReadOnly(Type.Union([Type.String(), Type.Null()])),
  phone_number: Type.Optional(PhoneNumber),
  phone_numbers: Type.Optional(PhoneNumbers),
  gateway: Type.Optional(Trunk.properties.gateway),
  secondary_gateway: Type.Optional(Trunk.properties.secondary_gateway),
  port: Type.Optional({ ...Port, description: `${Port.description}; on create 5060, or 5061 with \`tls\`` }),
  transport: Type.Optional(Transport),
  auth: Type.Optional(AuthWrite),
  allowed_ips: Type.Optional(AddressListWrite('Addresses of the carrier’s signalling servers calls are accepted from')),
  codecs: Type.Optional(Codecs),
  normalizer: Type.Optional(NormalizerWrite),
  created_at: ReadOnly(Timestamp()),
  updated_at: ReadOnly(Timestamp()),
};

export const TrunkCreate = Type.Object(
  { ...writeMembers, name: Name, gateway: Trunk.properties.gateway },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Twilio trunk',
        agent_uuid: '0190a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b',
        phone_numbers: ['+14155550100', '+14155550101'],
        gateway: 'acme.pstn.twilio.com',
        transport: 'tls',
        auth: { username: 'acme-agent', password: 'credential-password' },
        allowed_ips: ['54.172.60.0/30', '54.244.51.0/30'],
        codecs: ['PCMU', 'opus'],
      },
    ],
  },
);
export const TrunkPatch = Type.Object(writeMembers, { additionalProperties: false, examples: [{ status: 'inactive' }, { auth: { password: 'rotated-password' } }] });

export type TrunkJson = Static<typeof Trunk>;
export type TrunkPatchBody = Static<typeof TrunkPatch>;
