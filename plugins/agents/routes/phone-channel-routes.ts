import type { AnyRoute, TSchema } from '../../../core';
import type { AgentService } from '../agent-service';
import { AgentChannel, AgentPhoneNumber } from '../entities';
import { camelFields } from '../list-items';
import { ChannelPatch, ChannelWrite } from '../schemas/channel';
import { PhoneNumberPatch, PhoneNumberWrite, defaultCapabilities } from '../schemas/phone-number';
import { childListRoutes } from './child-routes';

/** Phone numbers and channels: where the agent can be reached. */
export function phoneAndChannelRoutes(service: AgentService, agent: TSchema): AnyRoute[] {
  const phoneNumbers = childListRoutes(service, agent, {
    segment: 'phone-numbers',
    param: 'phoneNumberUuid',
    kind: 'agents.phone-number',
    member: 'phone_numbers',
    noun: 'phone number',
    entity: AgentPhoneNumber,
    conflict: 'This number already belongs to an agent of this tenant',
    create: {
      body: PhoneNumberWrite,
      description: 'A number belongs to one agent of the tenant at a time (409 otherwise).',
      fields: (_, body) => ({ ...camelFields(body, ['phone_number_uuid']), capabilities: { ...defaultCapabilities, ...body.capabilities } }),
    },
    update: {
      body: PhoneNumberPatch,
      description: 'Only the members sent change; `capabilities` merge by member.',
      apply: (_, row, body) => {
        const { capabilities, ...rest } = camelFields(body, ['phone_number_uuid']);
        Object.assign(row, rest);
        if (capabilities !== undefined) row.capabilities = { ...row.capabilities, ...(capabilities as object) };
      },
    },
    remove: {},
  });

  const channels = childListRoutes(service, agent, {
    segment: 'channels',
    param: 'channelUuid',
    kind: 'agents.channel',
    member: 'channels',
    noun: 'channel',
    entity: AgentChannel,
    create: { body: ChannelWrite, fields: (_, body) => camelFields(body) },
    update: { body: ChannelPatch, description: 'Only the members sent change; `config`, when sent, is replaced.', apply: (_, row, body) => void Object.assign(row, camelFields(body)) },
    remove: {},
  });
  return [...phoneNumbers, ...channels];
}
