import type { Egress, Logger, Static, TSchema } from '../../core';

/**
 * The channel driver contract: what a plugin declares to connect agents to a messaging
 * provider (Twilio SMS, the WhatsApp Cloud API, Messenger/Instagram, Telegram, or a
 * partner's). The channels plugin owns everything around it: connections (credentials
 * sealed, never returned), the inbound hook `POST /hooks/channels/{channel_uuid}`, replay
 * protection, the runtime turn, pacing, retries and delivery receipts. A driver only
 * speaks its provider's language: it checks signatures, reads webhooks, and sends.
 * Add one with `channelDrivers.add(driver)` in a plugin's `contributes`.
 */

/** An inbound webhook request as a driver sees it. */
export interface InboundRequest {
  method: 'GET' | 'POST';
  /**
   * The URL the provider called, as it called it (scheme, host, path and query), which
   * signatures are computed over (Twilio's): the channels plugin rebuilds it from
   * PUBLIC_BASE_URL when set, else from the request (with TRUST_PROXY, its forwarded host).
   */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  /** The body exactly as received: signatures (`X-Hub-Signature-256`) are over these bytes. */
  rawBody: Buffer;
  /** The body parsed: a JSON value, or an object of form fields (`application/x-www-form-urlencoded`, Twilio). */
  body: unknown;
  query: Record<string, string>;
}

/** A connection as a driver sees it: credentials opened for the call, never for a response or a log line. */
export interface ChannelConnectionValue<C = Record<string, unknown>> {
  uuid: string;
  provider: string;
  label: string;
  credentials: C;
}

/** What a provider's webhook tells: a customer's message, or what became of one of ours. */
export type InboundEvent = InboundMessage | DeliveryReceipt | WatermarkReceipt | TemplateStatusUpdate;

export interface InboundMessage {
  kind: 'message';
  /** The provider's id of the message: a retried webhook carries the same one, and is handled once. */
  externalId: string;
  /** Who wrote: a phone number (E.164), a page-scoped id, a chat id. Replies go back to it. */
  from: string;
  /** The number or account written to, when the provider says. */
  to?: string;
  /** The text; null for a message that is only media. */
  text: string | null;
  media?: InboundMedia[];
  /** The sender's name as the provider knows it (WhatsApp profile, Telegram first name). */
  profileName?: string;
}

export interface InboundMedia {
  type: 'image' | 'audio' | 'video' | 'document' | 'sticker' | 'location' | 'other';
  /** Where the provider serves it (it may need the connection's credentials), or its media id. */
  url?: string;
  id?: string;
  mimeType?: string;
}

export interface DeliveryReceipt {
  kind: 'receipt';
  /** The provider's id of a message we sent (what `send` returned). */
  externalId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  /** The provider's reason, for `failed`. */
  reason?: string;
}

/**
 * A receipt naming no message but a moment (Messenger's `read` and `delivery` watermark):
 * every message sent to the customer `to` on the channel up to `watermark` reached `status`.
 */
export interface WatermarkReceipt {
  kind: 'receipt';
  /** The customer's address on the channel (the page-scoped id), as inbound messages give it in `from`. */
  to: string;
  watermark: Date;
  status: 'delivered' | 'read';
}

/**
 * The platform changed the review status of one of the business account's message
 * templates (the WhatsApp Cloud API's `message_template_status_update`): the channels
 * plugin updates the stored template with that platform id, if it has one.
 */
export interface TemplateStatusUpdate {
  kind: 'template_status';
  /** The business account the template belongs to (the webhook entry's id). */
  businessAccountId: string;
  /** The platform's id of the template. */
  templateId: string;
  /** The new status, upper case: `APPROVED`, `REJECTED`, `PAUSED`, `DISABLED`, ... */
  status: string;
  /** The platform's reason (a rejection's), null when it gave none. */
  reason: string | null;
}

/** What `send` and `typing` are given. */
export interface DriverContext<C = Record<string, unknown>> {
  connection: ChannelConnectionValue<C>;
  /** The one HTTP client for outbound calls (SSRF guard, timeouts); every provider call goes through it. */
  egress: Egress;
  /** The provider's API base URL, from config (TWILIO_API_BASE_URL, CHATAPP_API_BASE_URL, ...), without a trailing slash. */
  apiBaseUrl: string;
  /** The public URL of the channel's inbound hook, for providers that take a status callback per message (Twilio). */
  hookUrl: string;
  logger: Logger;
}

/** One message to send to a customer. */
export interface OutboundMessage {
  /** The customer's address, as an inbound message's `from` gave it. */
  to: string;
  /** The address the customer wrote to (the inbound message's `to`: one of the account's numbers), when known: answer from it. */
  from?: string;
  /** The provider's id of the customer's message this answers (the inbound `externalId`), when known. */
  replyTo?: string;
  text: string;
  /** The same for every retry of this message: send it where the provider takes one, so a retry sends nothing twice. */
  idempotencyKey: string;
}

/**
 * A send the provider refused or failed. `retryable` (a 429, a 5xx, a network error) makes
 * the channels plugin try again with backoff (honouring `retryAfterSeconds`); otherwise the
 * message's delivery turns `failed` with `message` as the reason.
 */
export class ChannelSendError extends Error {
  override readonly name = 'ChannelSendError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

export interface ChannelDriver<S extends TSchema = TSchema> {
  /** The `provider` of channel connections it serves: `twilio`, `chatapp`, `social`, `telegram`. */
  provider: string;
  /** How users know it (`Twilio SMS`). */
  name: string;
  /** The agent channel types (`/agents/{uuid}/channels` `type`) it can carry: `['sms']`, `['chatapp']`, `['social']`. */
  channelTypes: readonly string[];
  /** The schema of its connections' credentials (an object; checked on create, sealed, never returned). */
  credentials: S;
  /** The API base URL when the operator sets none (the provider's public one). */
  defaultApiBaseUrl: string;
  /**
   * Whether the request really comes from the provider, by its own signature
   * (`X-Twilio-Signature`, `X-Hub-Signature-256`, `X-Telegram-Bot-Api-Secret-Token`).
   * False answers 401 and nothing is recorded. Compare in constant time.
   */
  verify(request: InboundRequest, connection: ChannelConnectionValue<Static<S>>): boolean;
  /** A GET to the hook: the provider's verification handshake (the Graph `hub.challenge`); null answers 404. */
  challenge?(request: InboundRequest, connection: ChannelConnectionValue<Static<S>>): { status: number; contentType: string; body: string } | null;
  /** The events of a verified request, in order; what the driver does not handle is left out. Throw for a body it cannot read (400). */
  parse(request: InboundRequest, connection: ChannelConnectionValue<Static<S>>): InboundEvent[];
  /** What the hook answers the provider at once (Twilio wants TwiML); default `200 {"received": true}`. */
  acknowledge?: { contentType: string; body: string };
  /** Sends one text message; answers the provider's id of it (receipts name it). Throw ChannelSendError when it fails. */
  send(context: DriverContext<Static<S>>, message: OutboundMessage): Promise<{ externalId: string }>;
  /**
   * Shows the customer that the agent is typing, where the provider can (Messenger,
   * Telegram). `replyTo` is the customer's message being answered: WhatsApp ties its
   * indicator to one, and shows none without it.
   */
  typing?(context: DriverContext<Static<S>>, to: string, replyTo?: string): Promise<void>;
  /**
   * Sends an approved message template (the WhatsApp Cloud API's `type: 'template'`): the
   * only message a provider with a customer-service window takes outside it. `components`
   * fill the template's placeholders as the provider takes them (`[{type: 'body',
   * parameters: [{type: 'text', text: 'Ana'}]}]`). Answers the provider's id of the message
   * (receipts name it); throws ChannelSendError like `send`. Drivers without templates leave it out.
   */
  sendTemplate?(
    context: DriverContext<Static<S>>,
    message: { to: string; name: string; language: string; components: ReadonlyArray<Record<string, unknown>>; idempotencyKey: string },
  ): Promise<{ externalId: string }>;
  /**
   * Tells the provider the URL of a channel's hook (`{PUBLIC_BASE_URL}/hooks/channels/{channel_uuid}`),
   * for providers whose hook is set through their API (Telegram's `setWebhook`), not in
   * their console. Throws ChannelSendError when the provider refuses or cannot be reached.
   * `POST /api/v1/channel-connections/{uuid}/register-webhook` calls it.
   */
  registerWebhook?(context: DriverContext<Static<S>>, hook: { url: string }): Promise<void>;
  /**
   * The bytes of an inbound media item (a voice note to transcribe), fetched the way the
   * provider documents it (WhatsApp: `GET /{media-id}` then its URL with the token;
   * Telegram: `getFile` then the file path; Twilio: the MediaUrl with Basic auth), through
   * `context.egress`, never more than `maxBytes`. Called on the bus with no transaction
   * open. Throws InboundMediaError. Drivers without it leave audio untranscribed.
   */
  fetchMedia?(context: DriverContext<Static<S>>, media: InboundMedia, limits: { maxBytes: number }): Promise<FetchedMedia>;
  /** The longest text one message may carry (Twilio 1600, WhatsApp 4096, Messenger 2000): longer replies are split at word boundaries before sending. */
  maxTextLength?: number;
  /** Checks credentials on create (a call to the provider); a refusal is a 422 at `credentials` with `message`. */
  test?(credentials: Static<S>, context: { egress: Egress; apiBaseUrl: string }): Promise<{ valid: true } | { valid: false; message: string }>;
}

/** A media item's bytes, as the provider served them. */
export interface FetchedMedia {
  bytes: Buffer;
  /** The type the provider gave (its answer's or the webhook's), when it gave one; the bytes decide, not this. */
  mimeType: string | null;
}

/**
 * Media that could not be fetched or read (by a driver's `fetchMedia`, or a transcriber).
 * `retryable`: a 429, a 5xx or the network, worth another try later; otherwise (gone,
 * refused, too large, not audio) another try would fail the same way.
 */
export class InboundMediaError extends Error {
  override readonly name = 'InboundMediaError';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** Identity helper that types `credentials` from the schema. */
export const defineChannelDriver = <S extends TSchema>(driver: ChannelDriver<S>): ChannelDriver<S> => driver;
