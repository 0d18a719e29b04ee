import { defineSecretColumn } from '../../core';

/** The signing secret of an agent webhook. Only `has_secret` is ever returned. */
export const webhookSecret = defineSecretColumn({ table: 'agent_webhooks', column: 'secret', entity: 'agent_webhook', field: 'secret' });

/** The credential an intent sends to its own webhook. Only `has_auth_token` is ever returned. */
export const intentAuthToken = defineSecretColumn({ table: 'agent_intents', column: 'webhook_auth_token', entity: 'agent_intent', field: 'webhook_auth_token' });
