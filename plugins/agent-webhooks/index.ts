import { BootError, configRef, coreServices, definePlugin } from '../../core';
import { agentDirectoryRef, agentWebhookEvents } from '../agents';
import { agentWebhooksConfig, parseRetrySchedule } from './config';
import { registerDelivery } from './delivery';
import * as entities from './entities';
import { Migration0001AgentWebhookDeliveries } from './migrations/0001-agent-webhook-deliveries';
import { registerFanOut } from './fan-out';
import { deliveryRoutes } from './routes';

// The public API of the agent-webhooks plugin: what other plugins may import.
export { DELIVER_TOPIC, type DeliverMessage } from './topics';
export { signature, signingKey, webhookHeaders } from './signature';
export { parseRetrySchedule } from './config';

/**
 * Delivers agent webhooks: consumes every topic the webhook event catalog names as an
 * event's `source`, writes one delivery per subscribed active webhook, POSTs it signed
 * (Standard Webhooks) through the egress guard, retries on a schedule, and lists the
 * deliveries with a manual retry.
 */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [{ name: '0001-agent-webhook-deliveries', class: Migration0001AgentWebhookDeliveries }],
  config: agentWebhooksConfig,
  deps: { http: coreServices.http, bus: coreServices.bus, egress: coreServices.egress, config: configRef(agentWebhooksConfig), agents: agentDirectoryRef },
  init({ http, bus, egress, config, agents }, { extensions }) {
    let schedule: number[];
    try {
      schedule = parseRetrySchedule(config.get('retrySchedule'));
    } catch (error) {
      throw new BootError((error as Error).message);
    }
    registerFanOut(bus, agents, extensions.items(agentWebhookEvents));
    registerDelivery(bus, egress, agents, { schedule, timeoutMs: config.get('timeoutMs'), concurrency: config.get('concurrency') });
    for (const route of deliveryRoutes(bus, agents)) http.route(route);
  },
});
