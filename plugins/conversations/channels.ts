/**
 * The channels a conversation runs on. `voice` (a phone call) and `chatapp_call` (a
 * call through a chat app) are calls: their sessions are judged by the `voice`
 * analyzer block; every other channel is text and gets the `text` block.
 */
export const CHANNELS = ['voice', 'sms', 'chatapp', 'chatapp_call', 'social', 'chat'] as const;
export type Channel = (typeof CHANNELS)[number];

export const VOICE_CHANNELS: readonly Channel[] = ['voice', 'chatapp_call'];
export const isVoiceChannel = (channel: Channel): boolean => VOICE_CHANNELS.includes(channel);

export const SENDERS = ['customer', 'agent', 'system'] as const;
export type Sender = (typeof SENDERS)[number];

/**
 * `tool`: a tool the agent's model called in a turn (its name, arguments and result), recorded by the runtime.
 * `audio`, `image`, `video`, `document`, `location`: media a customer sent through a channel (the content is its URL or the provider's id).
 */
export const MESSAGE_TYPES = ['text', 'audio', 'image', 'video', 'document', 'location', 'event', 'tool'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/**
 * What became of an agent message sent through a channel: `pending` (queued, paced),
 * `sent` (the provider took it), `delivered`, `read`, or `failed` (with the reason).
 * It only moves forward (DELIVERY_STATUS_RANK): a late `delivered` never undoes `read`.
 */
export const DELIVERY_STATUSES = ['pending', 'sent', 'delivered', 'read', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** `failed` ranks with `delivered`: neither replaces the other, and `read` (it arrived after all) replaces both. */
export const DELIVERY_STATUS_RANK: Record<DeliveryStatus, number> = { pending: 0, sent: 1, delivered: 2, failed: 2, read: 3 };

/**
 * `transferred`: handed to a person or another destination (a routing or guard rule);
 * it still takes messages (a human may continue) until it is closed.
 */
export const CONVERSATION_STATUSES = ['open', 'transferred', 'closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** A session is open or closed: a transfer does not end it (the exchange goes on). */
export const SESSION_STATUSES = ['open', 'closed'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/**
 * Why a session closed: the customer was idle for the timeout, its conversation
 * closed (for a call: the call ended), or it was closed for another reason.
 */
export const SESSION_CLOSE_REASONS = ['timeout', 'conversation_closed'] as const;
export type SessionCloseReason = (typeof SESSION_CLOSE_REASONS)[number];
