import { Component, ReadOnly, Timestamp, Type, Uuid } from '../../../core';
import { HttpUrl } from './formats';

const Events = Type.Array(Type.String({ maxLength: 100 }), {
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  description: 'Event names from `GET /api/v1/agent-webhook-events`',
});

/** An agent webhook. The secret is write-only: only `has_secret` is ever returned. */
export const Webhook = Component('Webhook', Type.Object(
  {
    webhook_uuid: ReadOnly(Uuid()),
    url: HttpUrl('Where events are POSTed'),
    events: Events,
    is_active: Type.Boolean(),
    has_secret: ReadOnly(Type.Boolean()),
    created_at: ReadOnly(Timestamp()),
    updated_at: ReadOnly(Timestamp()),
  },
  { additionalProperties: false },
));

const Secret = Type.Union([Type.String({ minLength: 16, maxLength: 1024 }), Type.Null()], {
  writeOnly: true,
  description: 'Signs each delivery; never returned (see `has_secret`). null removes it, absent keeps it.',
});

const readOnly = {
  webhook_uuid: ReadOnly(Uuid()),
  has_secret: ReadOnly(Type.Boolean()),
  created_at: ReadOnly(Timestamp()),
  updated_at: ReadOnly(Timestamp()),
};

export const WebhookWrite = Type.Object(
  { ...readOnly, url: Webhook.properties.url, events: Events, secret: Type.Optional(Secret), is_active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, examples: [{ url: 'https://example.com/hooks/agents', events: ['agent.updated'], secret: 'a-long-random-signing-secret' }] },
);

export const WebhookPatch = Type.Object(
  {
    ...readOnly,
    url: Type.Optional(Webhook.properties.url),
    events: Type.Optional(Events),
    secret: Type.Optional(Secret),
    is_active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const WebhookEvent = Type.Object({ name: Type.String(), description: Type.String() }, { additionalProperties: false });
