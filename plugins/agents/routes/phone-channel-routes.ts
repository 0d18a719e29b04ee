import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnyRoute, TSchema } from '../../../core';
import type { AgentChannelCheck } from '../channel-checks';
import type { AgentService } from '../agent-service';
import { AgentChannel, AgentPhoneNumber } from '../entities';
import { camelFields } from '../list-items';
import { ChannelPatch, ChannelWrite } from '../schemas/channel';
import { PhoneNumberPatch, PhoneNumberWrite, defaultCapabilities } from '../schemas/phone-number';
import { checkAllowedOrigins, newPublicKey } from '../web-chat-origins';
import type { FieldErrorList } from '../validation/field-errors';
import { childListRoutes } from './child-routes';

/** Members a channel's body may carry back but never sets. */
const READ_ONLY = ['uuid', 'public_key'];

/** Phone numbers and channels: where the agent can be reached. */
export function phoneAndChannelRoutes(service: AgentService, agent: TSchema, checks: readonly AgentChannelCheck[] = []): AnyRoute[] {
  /** What other plugins check of a channel's config (the channels plugin: its connection). */
  const checkChannel = async (em: EntityManager, channel: { type: string; config: Record<string, unknown> }, errors: FieldErrorList) => {
    for (const check of checks) if (check.types.includes(channel.type)) await check.check(em, channel, errors);
  };
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
    create: {
      body: ChannelWrite,
      description: 'A `web_chat` channel gets its `public_key`; its `config.allowed_origins` must be origins (422 naming the member).',
      fields: async ({ errors, em }, body) => {
        if (body.type === 'web_chat') checkAllowedOrigins(body.config, errors);
        await checkChannel(em, { type: body.type, config: body.config ?? {} }, errors);
        return { ...camelFields(body, READ_ONLY), publicKey: body.type === 'web_chat' ? newPublicKey() : null };
      },
    },
    update: {
      body: ChannelPatch,
      description: 'Only the members sent change; `config`, when sent, is replaced. A channel becoming `web_chat` gets a `public_key` if it never had one.',
      apply: async ({ errors, em }, row, body) => {
        Object.assign(row, camelFields(body, READ_ONLY));
        if (body.config !== undefined || body.type !== undefined) await checkChannel(em, { type: row.type, config: row.config }, errors);
        if (row.type !== 'web_chat') return;
        if (body.config !== undefined || body.type !== undefined) checkAllowedOrigins(row.config, errors);
        row.publicKey ??= newPublicKey();
      },
    },
    remove: {},
  });
  return [...phoneNumbers, ...channels];
}
