import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError, SuccessEnvelope, Timestamp, Type, defineRoute, type AnyRoute } from '../../../core';
import type { AgentService } from '../agent-service';
import { AgentPhoneNumber, type PhoneCapabilities } from '../entities';

/**
 * Which capabilities of an agent phone number one trunk channel binds. The spec names
 * only `call` and `chatapp`: `call` is the voice trunk (`capabilities.call`), `chatapp`
 * the chatapp number, which carries both its text and its calls (`chatapp` and
 * `chatapp_call`). `sms` belongs to no trunk channel, so no delete removes it.
 */
const BINDINGS = {
  call: ['call'],
  chatapp: ['chatapp', 'chatapp_call'],
} as const satisfies Record<string, ReadonlyArray<keyof PhoneCapabilities>>;

type TrunkChannel = keyof typeof BINDINGS;

const TrunkQuery = Type.Object(
  {
    phone_number: Type.String({
      // A `+` left unencoded in a query string arrives as a space: read it as the `+` it was.
      pattern: '^[+ ]?[1-9][0-9]{6,14}$',
      description: 'The bound number in E.164; the leading `+` is optional (`14155550100` is `+14155550100`; send it as `%2B`)',
    }),
    channel: Type.Union([Type.Literal('call'), Type.Literal('chatapp')], { description: 'The channel whose binding goes: `call` or `chatapp`' }),
  },
  { additionalProperties: false },
);

const TrunkDeleted = SuccessEnvelope(
  Type.Object({
    phone_number: Type.String({ description: 'The number, in E.164 with its `+`' }),
    channel: Type.Union([Type.Literal('call'), Type.Literal('chatapp')]),
    deleted_at: Timestamp(),
  }),
);

/** `14155550100` and `+14155550100` are one number: the agent lists keep the `+` form. */
const e164 = (phoneNumber: string) => `+${phoneNumber.replace(/^[+ ]/, '')}`;

const bound = (capabilities: PhoneCapabilities, channel: TrunkChannel) => BINDINGS[channel].some((name) => capabilities[name]);

/**
 * The number of this tenant with its agent locked, read again after the lock: the agent
 * lock is what every write to an agent's lists takes, so a concurrent PATCH of the same
 * number cannot interleave with this delete. Null when the tenant has no such number.
 */
async function lockedNumber(em: EntityManager, service: AgentService, number: string) {
  const found = await em.findOne(AgentPhoneNumber, { number });
  if (!found) return null;
  const agent = await service.lockForWrite(em, found.agentUuid);
  const row = await em.findOne(AgentPhoneNumber, { number, agentUuid: agent.uuid }, { refresh: true });
  return row ? { agent, row } : null;
}

/** `DELETE /api/v1/phone-numbers/trunks`: unbinds an agent phone number from one trunk channel. */
export const trunkRoutes = (service: AgentService): AnyRoute[] => [
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/phone-numbers/trunks',
    summary: 'Remove a trunk binding of a phone number',
    description:
      'Removes the binding of one of the agent phone numbers of this tenant on one channel. `channel=call` turns off the ' +
      "number's `capabilities.call` (voice calls); `channel=chatapp` turns off `capabilities.chatapp` and " +
      '`capabilities.chatapp_call` (the chatapp carries both its messages and its calls). `sms` is no trunk channel and stays. ' +
      'A number bound on no channel left (every capability off, `sms` included) is removed from its agent: the number is ' +
      'the binding’s "agent app" here, and it holds no connection of its own, so nothing else goes. Nothing is billed or ' +
      'released at the provider. To unbind every channel, call once per channel. A number this tenant does not have, or one ' +
      'not bound on that channel, is 404. The agent’s change is announced as `agent.updated` (member `phone_numbers`).',
    tags: ['agents'],
    query: TrunkQuery,
    errors: [404],
    response: TrunkDeleted,
    handler: async ({ query, em }) => {
      const number = e164(query.phone_number);
      const channel = query.channel as TrunkChannel;
      const found = await lockedNumber(em, service, number);
      if (!found || !bound(found.row.capabilities, channel)) throw new NotFoundError(`No ${channel} trunk binding for ${number}`);
      const { agent, row } = found;
      // A new object: the json column is written when the property changes, not when its members do.
      const capabilities = { ...row.capabilities };
      for (const name of BINDINGS[channel]) capabilities[name] = false;
      const emptied = Object.values(capabilities).every((on) => !on);
      if (emptied) em.remove(row);
      else row.capabilities = capabilities;
      await service.saved(em, agent, ['phone_numbers']);
      return {
        success: true,
        message: emptied ? 'Trunk binding removed; the number had no other binding and was removed from its agent' : 'Trunk binding removed',
        data: { phone_number: number, channel, deleted_at: new Date().toISOString() },
      };
    },
  }),
];
