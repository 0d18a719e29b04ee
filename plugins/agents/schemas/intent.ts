import { Component, ReadOnly, Timestamp, Type, Uuid } from '../../../core';
import { HttpUrl, Ratio, Text } from './formats';

const IntentParameter = Type.Object(
  {
    key: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$', description: 'Argument name in the tool schema' }),
    default: Type.String({ maxLength: 2000 }),
    type: Type.Union([Type.Literal('string'), Type.Literal('number'), Type.Literal('integer'), Type.Literal('boolean')], { description: 'JSON type of the argument' }),
    required: Type.Boolean(),
  },
  { additionalProperties: false },
);

const IntentParameterWrite = Type.Object(
  {
    key: IntentParameter.properties.key,
    default: Type.Optional(IntentParameter.properties.default),
    type: Type.Optional(IntentParameter.properties.type),
    required: Type.Optional(IntentParameter.properties.required),
  },
  { additionalProperties: false },
);

/**
 * The webhook the intent calls. `auth_token` is a credential for that target: it is
 * write-only (encrypted at rest, never returned); responses show `has_auth_token`.
 */
const IntentWebhook = Type.Object(
  { url: Type.Union([HttpUrl(), Type.Null()]), has_auth_token: ReadOnly(Type.Boolean()) },
  { additionalProperties: false },
);

const IntentWebhookWrite = Type.Object(
  {
    url: Type.Optional(Type.Union([HttpUrl(), Type.Null()], { description: 'null removes the webhook' })),
    auth_token: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()], {
        writeOnly: true,
        description: 'Sent to the webhook as `Authorization: Bearer <auth_token>`; never returned; null removes it, absent keeps it',
      }),
    ),
    has_auth_token: ReadOnly(Type.Boolean()),
  },
  { additionalProperties: false },
);

const KEY = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Tool name, unique within the agent' });

/** A tool the agent can call: trigger description, threshold, webhook and parameters. */
export const Intent = Component('Intent', Type.Object(
  {
    intent_uuid: ReadOnly(Uuid()),
    key: KEY,
    name: Type.String({ maxLength: 200 }),
    description: Text('When the agent should call this tool'),
    recommendation_actions: Text(),
    confidence_threshold: Ratio('Least confidence (0 to 1) for the intent to trigger'),
    is_system: Type.Boolean(),
    intent_llm_handle_by_response: Type.Boolean({ description: "The model answers from the webhook's response" }),
    webhook: IntentWebhook,
    parameters: Type.Array(IntentParameter),
    created_at: ReadOnly(Timestamp()),
    updated_at: ReadOnly(Timestamp()),
  },
  { additionalProperties: false },
));

const writeMembers = {
  intent_uuid: ReadOnly(Uuid()),
  name: Type.Optional(Intent.properties.name),
  description: Type.Optional(Intent.properties.description),
  recommendation_actions: Type.Optional(Intent.properties.recommendation_actions),
  confidence_threshold: Type.Optional(Intent.properties.confidence_threshold),
  is_system: Type.Optional(Intent.properties.is_system),
  intent_llm_handle_by_response: Type.Optional(Intent.properties.intent_llm_handle_by_response),
  webhook: Type.Optional(IntentWebhookWrite),
  parameters: Type.Optional(Type.Array(IntentParameterWrite, { maxItems: 100 })),
  created_at: ReadOnly(Timestamp()),
  updated_at: ReadOnly(Timestamp()),
};

export const IntentWrite = Type.Object(
  { ...writeMembers, key: KEY },
  {
    additionalProperties: false,
    examples: [
      {
        key: 'book_demo',
        name: 'Book a demo',
        description: 'The contact wants a product demo',
        confidence_threshold: 0.7,
        webhook: { url: 'https://crm.example.com/hooks/demo', auth_token: 'secret-token' },
        parameters: [{ key: 'email', type: 'string', required: true }],
      },
    ],
  },
);

export const IntentPatch = Type.Object({ ...writeMembers, key: Type.Optional(KEY) }, { additionalProperties: false });
