import { Component, PageQuery, ReadOnly, Timestamp, Type, Uuid, type Static } from '../../../core';
import { Normalizer, NormalizerWrite } from '../schemas/normalizer';
import { AddressListWrite, E164, Host, Name, Port, Status, Transport } from '../schemas/sip-values';

const SetupMode = Type.Union([Type.Literal('inbound'), Type.Literal('outbound'), Type.Literal('both')], {
  description: 'Which calls the extension carries: `inbound` (the PBX rings the agent), `outbound` (the agent calls out through the PBX) or `both`',
});
const AgentUuid = Type.Union([Uuid(), Type.Null()], {
  description: 'The agent that answers and calls from this extension; null: none (the connector is then `inactive`). When the agent has phone numbers, `phone_number` must be one of them',
});
const PhoneNumber = Type.Union([E164, Type.Null()], { description: 'The number calls to this extension come in on, E.164; null: none' });
const ConnectorStatus = { ...Status, description: '`active` needs an agent; an agent’s deletion, or `agent_uuid: null`, makes the connector `inactive`' };
const Password = Type.Union([Type.String({ minLength: 1, maxLength: 256 }), Type.Null()], {
  description: 'Write-only: the SIP password the extension registers with; stored encrypted and never returned (see `has_password`). null: remove it',
});
const Username = Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], {
  description: 'The SIP authentication username, when it differs from the extension (`has_separate_credentials`); null otherwise',
});

export const Connector = Component(
  'PbxExtensionConnector',
  Type.Object(
    {
      pbx_extension_connector_uuid: ReadOnly(Uuid()),
      name: Name,
      status: ConnectorStatus,
      phone_number: PhoneNumber,
      agent_uuid: AgentUuid,
      agent_name: ReadOnly(Type.Union([Type.String(), Type.Null()], { description: 'The bound agent’s name' })),
      sip_connector_server: ReadOnly(
        Type.Union([Type.String(), Type.Null()], { description: 'This installation’s SIP server the extension registers from (setting `TELEPHONY_SIP_CONNECTOR_SERVER`); null: not configured' }),
      ),
      connection_type: Transport,
      setup_mode: SetupMode,
      pbx: Type.Object(
        {
          registrar_server: Host('The PBX’s registrar (FreePBX, 3CX, Asterisk, ...)'),
          port: Port,
          username_extension: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.+*#-]+$', description: 'The extension (its SIP username) the agent registers as, e.g. `201`' }),
        },
        { additionalProperties: false },
      ),
      inbound: Type.Object(
        { allowed_ip: Type.Array(Type.String(), { description: 'Addresses or CIDR blocks SIP traffic for this extension is accepted from; empty: any' }) },
        { additionalProperties: false },
      ),
      auth: Type.Object(
        {
          has_separate_credentials: Type.Boolean({ description: 'Whether the extension authenticates with a username of its own rather than `pbx.username_extension`' }),
          username: Username,
          has_password: ReadOnly(Type.Boolean({ description: 'Whether a password is stored (it is never returned)' })),
        },
        { additionalProperties: false },
      ),
      normalizer: Normalizer,
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { additionalProperties: false },
  ),
);

const PbxWrite = Type.Object(
  {
    registrar_server: Type.Optional(Connector.properties.pbx.properties.registrar_server),
    port: Type.Optional({ ...Port, description: `${Port.description}; on create 5060, or 5061 with \`tls\`` }),
    username_extension: Type.Optional(Connector.properties.pbx.properties.username_extension),
  },
  { additionalProperties: false, description: 'The PBX registration. On create `registrar_server` and `username_extension` are required; on update, members left out keep their value' },
);
const InboundWrite = Type.Object({ allowed_ip: Type.Optional(AddressListWrite('Addresses SIP traffic for this extension is accepted from')) }, { additionalProperties: false });
const AuthWrite = Type.Object(
  {
    has_separate_credentials: Type.Optional(Connector.properties.auth.properties.has_separate_credentials),
    username: Type.Optional(Username),
    password: Type.Optional(Password),
    has_password: ReadOnly(Type.Boolean()),
  },
  { additionalProperties: false, description: 'Members left out keep their value. `username` is required with `has_separate_credentials: true`, refused without it' },
);

const writeMembers = {
  pbx_extension_connector_uuid: ReadOnly(Uuid()),
  name: Type.Optional(Name),
  status: Type.Optional(ConnectorStatus),
  phone_number: Type.Optional(PhoneNumber),
  agent_uuid: Type.Optional(AgentUuid),
  agent_name: ReadOnly(Type.Union([Type.String(), Type.Null()])),
  sip_connector_server: ReadOnly(Type.Union([Type.String(), Type.Null()])),
  connection_type: Type.Optional(Transport),
  setup_mode: Type.Optional(SetupMode),
  pbx: Type.Optional(PbxWrite),
  inbound: Type.Optional(InboundWrite),
  auth: Type.Optional(AuthWrite),
  normalizer: Type.Optional(NormalizerWrite),
  created_at: ReadOnly(Timestamp()),
  updated_at: ReadOnly(Timestamp()),
};

export const ConnectorCreate = Type.Object(
  { ...writeMembers, name: Name, pbx: PbxWrite },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Front desk',
        agent_uuid: '0190a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b',
        phone_number: '+14155550100',
        connection_type: 'udp',
        setup_mode: 'both',
        pbx: { registrar_server: 'pbx.example.com', port: 5060, username_extension: '201' },
        inbound: { allowed_ip: ['203.0.113.10', '198.51.100.0/24'] },
        auth: { has_separate_credentials: false, password: 'extension-secret' },
        normalizer: { default_prefix: '+1', condition_length: 10, condition_prefix: null },
      },
    ],
  },
);
export const ConnectorPatch = Type.Object(writeMembers, { additionalProperties: false, examples: [{ status: 'inactive' }, { auth: { password: 'new-secret' } }] });

export const ConnectorQuery = PageQuery({
  agent_uuid: Type.Optional(Uuid({ description: 'Only this agent’s connectors' })),
  phone_number: Type.Optional(Type.String({ pattern: '^[+ ]?[1-9][0-9]{6,14}$', description: 'Only connectors of this number, E.164; the leading `+` is optional (send it as `%2B`)' })),
  status: Type.Optional(Status),
});

export type ConnectorJson = Static<typeof Connector>;
export type ConnectorCreateBody = Static<typeof ConnectorCreate>;
export type ConnectorPatchBody = Static<typeof ConnectorPatch>;
