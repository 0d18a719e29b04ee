export { AgentWebhookDelivery, type DeliveryStatus } from './webhook-delivery.entity';
