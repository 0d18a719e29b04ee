import { Component, ReadOnly, Type, Uuid } from '../../../core';
import { OpenObject } from './formats';

/** The channels an agent can talk on (the spec names them in its overview). */
export const CHANNEL_TYPES = ['phone', 'sms', 'chatapp', 'chatapp_call', 'social', 'web_chat'] as const;

const ChannelType = Type.Union(
  CHANNEL_TYPES.map((type) => Type.Literal(type)),
  { description: 'phone (voice calls), sms, chatapp (text), chatapp_call (voice), social (social messaging), web_chat' },
);

const PublicKey = ReadOnly(
  Type.Union([Type.String({ pattern: '^pk_[A-Za-z0-9_-]{24,}$' }), Type.Null()], {
    description:
      'A `web_chat` channel’s public key, made when the channel is created: the hosted chat page (`/chat/{public_key}`) and the widget ' +
      '(`data-public-key` of `/widget.js`) name the channel with it. `null` for other types.',
  }),
);

/** A channel the agent talks on; `config` holds its non-secret settings. */
export const Channel = Component('Channel', Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    type: ChannelType,
    name: Type.String({ maxLength: 200 }),
    is_active: Type.Boolean(),
    config: OpenObject(
      'Channel settings (no credentials: those live in connections). A `web_chat` channel’s `allowed_origins` lists the origins ' +
        '(`https://shop.example.com`) whose pages may embed its widget; without it only the hosted chat page talks to it.',
    ),
    public_key: PublicKey,
  },
  { additionalProperties: false },
));

export const ChannelWrite = Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    type: ChannelType,
    name: Type.Optional(Channel.properties.name),
    is_active: Type.Optional(Type.Boolean()),
    config: Type.Optional(Channel.properties.config),
    public_key: PublicKey,
  },
  { additionalProperties: false, examples: [{ type: 'web_chat', name: 'Website widget', config: { allowed_origins: ['https://shop.example.com'] } }] },
);

export const ChannelPatch = Type.Object(
  { ...ChannelWrite.properties, type: Type.Optional(ChannelType) },
  { additionalProperties: false },
);
