import type { AnyRoute, TSchema } from '../../../core';
import type { AgentService } from '../agent-service';
import { AgentWebhook } from '../entities';
import { WebhookPatch, WebhookWrite } from '../schemas/webhook';
import { webhookSecret } from '../secret-columns';
import { checkWebhookEvents } from '../validation/agent-rules';
import { childListRoutes, type ChildContext } from './child-routes';

/** Agent webhooks. The secret is sealed at rest; responses only say `has_secret`. */
export function webhookRoutes(service: AgentService, agent: TSchema): AnyRoute[] {
  const seal = (context: ChildContext, secret: string | null) =>
    secret === null ? null : service.secrets.encrypt(secret, webhookSecret.context(context.tenantUuid));

  return childListRoutes(service, agent, {
    segment: 'webhooks',
    param: 'webhookUuid',
    kind: 'agents.webhook',
    member: 'webhooks',
    noun: 'webhook',
    entity: AgentWebhook,
    create: {
      body: WebhookWrite,
      description: '`events` must be names from `GET /api/v1/agent-webhook-events`. `secret` is write-only.',
      fields: (context, body) => {
        checkWebhookEvents(body.events, 'events', service.webhookEvents, context.errors);
        return { url: body.url, events: body.events, isActive: body.is_active ?? true, secret: body.secret === undefined ? null : seal(context, body.secret) };
      },
    },
    update: {
      body: WebhookPatch,
      description: 'Only the members sent change; `secret` absent keeps it, null removes it.',
      apply: (context, row, body) => {
        checkWebhookEvents(body.events, 'events', service.webhookEvents, context.errors);
        if (body.url !== undefined) row.url = body.url;
        if (body.events !== undefined) row.events = body.events;
        if (body.is_active !== undefined) row.isActive = body.is_active;
        if (body.secret !== undefined) row.secret = seal(context, body.secret);
      },
    },
    remove: {},
  });
}
