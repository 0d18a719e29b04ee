import type { InboundMedia } from './driver';

/** The channels plugin's bus topics: its own work queues, not events for other plugins. */
export const CHANNEL_TOPICS = {
  inbound: 'channels.inbound',
  /** An inbound message with a voice note, fetched and transcribed before its turn (then published to `inbound`). */
  audio: 'channels.audio',
  send: 'channels.send',
  /** A parked send whose wait reached `sendWaitLimitMs`: sent if still parked (send-order.ts). */
  sendUnpark: 'channels.send-unpark',
  typing: 'channels.typing',
  receipt: 'channels.receipt',
} as const;

/** Where a channel's messages go: the same for every message of one hook call. */
export interface ChannelAddress {
  channel_uuid: string;
  agent_uuid: string;
  connection_uuid: string;
  /** The agent channel's type (`sms`, `chatapp`, `social`): the conversation's channel. */
  channel_type: string;
  /** The public URL of the channel's hook, for providers that take a status callback per message. */
  hook_url: string;
}

/** One new customer message (`channels.inbound`): one runtime turn. */
export interface InboundPayload extends ChannelAddress {
  external_id: string;
  from: string;
  /** The account's address the customer wrote to (one of its numbers), when the provider says: replies come from it. */
  to: string | null;
  text: string | null;
  media: InboundMedia[];
  profile_name: string | null;
  /**
   * For a message with audio its driver can fetch: the words of its first audio item, as
   * the audio step (`channels.audio`) transcribed them ('' when none were heard), or null
   * when it was not transcribed (no transcriber installed, or fetching or transcribing
   * failed): its turn then gets a placeholder. Absent otherwise (no audio, or a driver
   * without `fetchMedia`, whose audio stays a media message with no turn).
   */
  transcript?: string | null;
}

/** One agent message to send (`channels.send`), due at the message's `at`. */
export interface SendPayload extends ChannelAddress, ReplyContext {
  message_uuid: string;
  to: string;
  text: string;
  /** 1 on the first try; a retry is published again with the next. */
  attempt: number;
  /** Of a text longer than the driver's `maxTextLength`, sent in parts: how many went out already (a retry goes on after them). */
  parts_sent?: number;
}

/** What a reply answers: the customer's message and the address they wrote to. */
export interface ReplyContext {
  /** The inbound message's `to`: the reply is sent from it. */
  from?: string;
  /** The inbound message's provider id. */
  reply_to?: string;
}

/** A send parked behind an earlier unsettled one, to be let go once it has waited long enough. */
export interface SendUnparkPayload {
  message_uuid: string;
}

/** Shows the customer the agent typing (`channels.typing`), where the driver can. */
export interface TypingPayload extends ChannelAddress, ReplyContext {
  to: string;
}

/**
 * What the provider says became of one of our messages (`channels.receipt`), or, with
 * `watermark` (no `external_id`), of every message sent to the customer `to` up to then.
 */
export interface ReceiptPayload {
  channel_uuid: string;
  external_id: string | null;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  reason: string | null;
  to?: string;
  /** ISO time. */
  watermark?: string;
}
