/** Internal: one message per delivery attempt, `{ delivery_uuid, queue_token }`. */
export const DELIVER_TOPIC = 'agent_webhooks.deliver';

export interface DeliverMessage {
  delivery_uuid: string;
  queue_token: string;
}
