import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, ValidationError, boundQuery, type BusService, type Logger, type TenantRef } from '../../../core';
import type { AgentDirectory, AgentJson } from '../../agents';
import type { ContactDirectory } from '../../contacts';
import { CHANNELS, type Channel, type ConversationWriter, type MessageType } from '../../conversations';
import type { ChatRequestJson, ChatTurnJson, ChatTurns } from '../../runtime';
import type { ChannelDrivers } from '../channel-drivers';
import { findConnection } from '../connections/connection-store';
import type { InboundMedia } from '../driver';
import { ORDER_RECHECK_MS, releaseVoiceNote, waitsForEarlierVoiceNote } from '../inbound/arrival-order';
import { audioOf } from '../inbound/inbound-audio';
import { CHANNEL_TOPICS, type ChannelAddress, type InboundPayload, type ReplyContext, type SendPayload, type TypingPayload } from '../topics';
import { paceReply, type PacingSettings } from './pacing';
import { claimThread, keepThread, threadOf } from './threads';

export interface InboundTurnDeps {
  bus: BusService;
  turns: ChatTurns;
  agents: AgentDirectory;
  conversations: ConversationWriter;
  drivers: ChannelDrivers;
  logger: Logger;
}

/** What inbound turns need beyond a reply's queueing: contacts, for the contact of a new thread's conversation. */
export interface InboundTurnRunDeps extends InboundTurnDeps {
  contacts: ContactDirectory;
}

/** Another message of the address opened the thread's conversation first. */
class ThreadTaken extends Error {}

type Prepared =
  /** `unheard`: a voice note answered with the placeholder; it is recorded as the media it is, stamped `receivedAt` (before the turn's messages). */
  | { kind: 'turn'; turn: ChatTurnJson; unheard?: { receivedAt: string }; agent: AgentJson | null }
  | { kind: 'media'; conversationUuid: string | null }
  /** The conversation was transferred to a person: the message is recorded for them, with no turn. */
  | { kind: 'handover'; conversationUuid: string }
  | { kind: 'dropped'; reason: string }
  /** An earlier voice note of the sender is still before its turn: the message is looked at again shortly (arrival-order.ts). */
  | { kind: 'deferred' };

const E164 = /^\+[1-9]\d{6,14}$/;
const MAX_TURN_TEXT = 8000;

/** The conversation's channel: the agent channel's type where conversations know it, else `chat`. */
export const conversationChannel = (type: string): Channel => ((CHANNELS as readonly string[]).includes(type) ? (type as Channel) : 'chat');

/** Who writes, as a turn's `contact`: a phone number finds or makes the contact; a chat id or page-scoped id is only a name. */
function contactOf(payload: InboundPayload): ChatRequestJson['contact'] {
  const name = payload.profile_name?.slice(0, 200) || undefined;
  if (E164.test(payload.from)) return { phone_number: payload.from, ...(name ? { name } : {}) };
  return { name: name ?? payload.from.slice(0, 200) };
}

/** A provider's media kind as a conversation message's type; a sticker is an image, what has no type of its own is described in text. */
const MEDIA_TYPES: Record<InboundMedia['type'], MessageType> = { audio: 'audio', image: 'image', sticker: 'image', video: 'video', document: 'document', location: 'location', other: 'text' };

/**
 * What the agent is told of a voice note nobody could listen to (no transcriber installed,
 * or the provider's file or the transcription failed): it can still answer, and ask for text.
 */
export const UNHEARD_VOICE_NOTE = '[The customer sent a voice message that could not be transcribed.]';

/**
 * The words a message's turn answers: its text, and for a voice note its transcript (after
 * the text, when both came), or the placeholder when it was not transcribed. `unheard`:
 * the placeholder stands in. Null text: nothing to answer (media only).
 */
export function turnWords(payload: InboundPayload): { text: string | null; unheard: boolean } {
  const caption = payload.text?.trim() ? payload.text : null;
  if (payload.transcript === undefined || !audioOf(payload.media)) return { text: caption, unheard: false };
  const transcript = payload.transcript?.trim() || null;
  const said = transcript ?? UNHEARD_VOICE_NOTE;
  return { text: caption ? `${caption}\n\n${said}` : said, unheard: transcript === null };
}

/** A media-only message: the first item's type, its URL or id as the content. */
function mediaMessage(media: InboundMedia[]): { messageType: MessageType; content: string } {
  const described = media.map((item) => `[${item.type}]${item.url ? ` ${item.url}` : item.id ? ` ${item.id}` : ''}`).join('\n') || '[media]';
  const [first] = media;
  if (!first || media.length > 1 || MEDIA_TYPES[first.type] === 'text') return { messageType: 'text', content: described };
  return { messageType: MEDIA_TYPES[first.type], content: first.url ?? first.id ?? described };
}

/**
 * Each inbound message (`channels.inbound`) runs one runtime turn, in `prepare` (no
 * transaction is open while the model answers), continuing the open conversation of
 * this channel and customer address; a closed one starts a new one. A message that came
 * after a voice note of its sender still before its turn waits for it (arrival-order.ts). The handler then
 * keeps the thread and queues one send per reply line, due when the agent's pacing
 * says, after a typing indicator where the driver has one.
 */
export function runInboundTurns(deps: InboundTurnRunDeps): void {
  const { bus, turns, logger } = deps;

  async function takeTurn(tenant: TenantRef, payload: InboundPayload, conversationUuid: string | null, agent: AgentJson | null): Promise<ChatTurnJson> {
    const request = (contact: ChatRequestJson['contact']): ChatRequestJson => ({
      message: turnWords(payload).text!.slice(0, MAX_TURN_TEXT),
      contact,
      channel: conversationChannel(payload.channel_type),
      ...(conversationUuid ? { conversation_uuid: conversationUuid } : {}),
    });
    const contact = contactOf(payload);
    // A transcribed voice note is recorded as what it was, audio, with its transcript as the content.
    // The agent as this message's prepare read it: the turn does not read it again.
    const options = { messageType: payload.transcript?.trim() && audioOf(payload.media) ? ('audio' as const) : ('text' as const), ...(agent ? { agent } : {}) };
    try {
      return await turns.take(tenant, payload.agent_uuid, request(contact), undefined, options);
    } catch (error) {
      // The contacts plugin checks numbers against the numbering plan, more strictly than a provider does
      // (`+1555...`): such a sender is still a customer, known by name only. Retrying the same would never pass.
      if (!(error instanceof ValidationError) || !contact?.phone_number) throw error;
      logger.info('channel sender is not a valid phone number: talking to them without a contact number', { channel_uuid: payload.channel_uuid });
      return turns.take(tenant, payload.agent_uuid, request({ name: contact.name ?? payload.from.slice(0, 200) }), undefined, options);
    }
  }

  /**
   * A new conversation for the address, with the contact its number finds or makes, as
   * the runtime would open it, made the thread's in the same short transaction, unless
   * another message of the address claimed the thread first: that one's conversation is
   * continued, so two first messages arriving at once open one conversation. Null when
   * the agent does not answer (the turn then says why).
   */
  async function openThread(em: EntityManager, tenant: TenantRef, payload: InboundPayload, previous: string | null, agent: AgentJson | null): Promise<string | null> {
    if (agent?.status !== 'active') return null;
    const contact = contactOf(payload);
    let contactUuid: string | null = null;
    if (contact?.phone_number) {
      try {
        contactUuid = (await deps.contacts.findOrCreate(contact, 'contact')).contact.uuid;
      } catch (error) {
        // A number the numbering plan refuses (`+1555...`): a customer known by name only (see takeTurn).
        if (!(error instanceof ValidationError)) throw error;
      }
    }
    try {
      return await em.fork().transactional(async (tx) => {
        const opened = await deps.conversations.open(tx, { agentUuid: payload.agent_uuid, contactUuid, channel: conversationChannel(payload.channel_type) });
        // Lost: the conversation just opened goes with the rolled back transaction.
        if (!(await claimThread(tx, tenant, payload.channel_uuid, payload.from, previous, opened.uuid))) throw new ThreadTaken();
        return opened.uuid;
      });
    } catch (error) {
      if (!(error instanceof ThreadTaken)) throw error;
      return threadOf(em, tenant, payload.channel_uuid, payload.from);
    }
  }

  /**
   * The thread's conversation decides: an open one is continued, a closed (or deleted)
   * one gives way to a new one, and a transferred one is a person's now, so the message
   * is only recorded in it. The turn re-checks under its lock; a refusal then is read again.
   */
  async function prepareTurn(em: EntityManager, tenant: TenantRef, payload: InboundPayload): Promise<Prepared> {
    const threaded = await threadOf(em, tenant, payload.channel_uuid, payload.from);
    const status = async (uuid: string | null) => (uuid ? ((await deps.conversations.find(em, uuid))?.status ?? 'gone') : 'gone');
    const before = await status(threaded);
    if (before === 'transferred') return { kind: 'handover', conversationUuid: threaded! };
    const words = turnWords(payload);
    if (!words.text?.trim()) return { kind: 'media', conversationUuid: before === 'gone' || before === 'closed' ? null : threaded };
    // Read once for the message: the thread, the turn and the reply's pacing all need it.
    const agent = await deps.agents.getWithoutSlots(payload.agent_uuid);
    const open = before === 'open' ? threaded : await openThread(em, tenant, payload, threaded, agent);
    const unheard = words.unheard ? { receivedAt: new Date().toISOString() } : undefined;
    const turn = (taken: ChatTurnJson): Prepared => ({ kind: 'turn', turn: taken, ...(unheard ? { unheard } : {}), agent });
    try {
      return turn(await takeTurn(tenant, payload, open, agent));
    } catch (error) {
      if (!(error instanceof ConflictError || error instanceof NotFoundError)) throw error;
      if (open) {
        const now = await status(open);
        if (now === 'transferred') return { kind: 'handover', conversationUuid: open };
        if (now === 'closed' || now === 'gone') return turn(await takeTurn(tenant, payload, await openThread(em, tenant, payload, open, agent), agent));
      }
      // Read again: the turn's refusal may be the agent's having changed since.
      const current = (await deps.agents.getWithoutSlots(payload.agent_uuid)) as { status?: string } | null;
      // The agent is gone or not active: retrying would not change that.
      if (current?.status !== 'active') return { kind: 'dropped', reason: (error as Error).message };
      // Another turn of the conversation held it past the runtime's wait: the bus tries again later.
      throw error;
    }
  }

  bus.consume<InboundPayload, Prepared>(
    {
      name: 'inbound',
      topics: [CHANNEL_TOPICS.inbound],
      concurrency: 8,
      prepare: async (message, { em }) => {
        if (await waitsForEarlierVoiceNote(em, message.tenant!, message.payload)) return { kind: 'deferred' };
        return prepareTurn(em, message.tenant!, message.payload);
      },
    },
    async (message, { em, prepared }) => {
      const tenant = message.tenant!;
      const payload = message.payload;
      if (prepared.kind === 'deferred') {
        await bus.publish(CHANNEL_TOPICS.inbound, payload, { at: new Date(Date.now() + ORDER_RECHECK_MS) });
        return;
      }
      // Whatever comes of it, a voice note is past its turn: its sender's later messages go on once this commits.
      await releaseVoiceNote(em, payload);
      if (prepared.kind === 'dropped') {
        logger.warn('inbound channel message not answered', { channel_uuid: payload.channel_uuid, reason: prepared.reason });
        return;
      }
      if (prepared.kind === 'handover') {
        await deps.conversations.record(em, prepared.conversationUuid, { sender: 'customer', ...handedOver(payload) });
        return;
      }
      if (prepared.kind === 'media') {
        const conversationUuid = await recordMedia(em, deps, payload, prepared.conversationUuid);
        await keepThread(em, tenant, payload.channel_uuid, payload.from, conversationUuid);
        return;
      }
      const { turn } = prepared;
      // The voice note nobody could listen to stays on record as it came, before the placeholder the agent answered.
      if (prepared.unheard && turn.status !== 'closed') {
        await deps.conversations.record(em, turn.conversation_uuid, { sender: 'customer', ...mediaMessage(payload.media), createdAt: new Date(prepared.unheard.receivedAt) });
      }
      await keepThread(em, tenant, payload.channel_uuid, payload.from, turn.conversation_uuid);
      await queueReply(em, deps, tenant, payload, payload.from, turn.messages, { ...(payload.to ? { from: payload.to } : {}), reply_to: payload.external_id }, prepared.agent);
    },
  );
}

/**
 * A message for the person the conversation was transferred to: its text, a voice note as
 * `audio` with its transcript (the media as it came when there is none), other media as
 * recorded when no turn runs.
 */
function handedOver(payload: InboundPayload): { messageType: MessageType; content: string } {
  const transcript = payload.transcript?.trim();
  if (transcript && audioOf(payload.media)) return { messageType: 'audio', content: payload.text?.trim() ? `${payload.text}\n\n${transcript}` : transcript };
  return payload.text?.trim() ? { messageType: 'text', content: payload.text } : mediaMessage(payload.media);
}

/** A media-only message: recorded with its type in the thread's conversation (or a new one), with no model turn. */
async function recordMedia(em: EntityManager, deps: InboundTurnDeps, payload: InboundPayload, conversationUuid: string | null): Promise<string> {
  const input = { sender: 'customer' as const, ...mediaMessage(payload.media) };
  if (conversationUuid) {
    try {
      await deps.conversations.record(em, conversationUuid, input);
      return conversationUuid;
    } catch (error) {
      if (!(error instanceof ConflictError || error instanceof NotFoundError)) throw error;
    }
  }
  const opened = await deps.conversations.open(em, { agentUuid: payload.agent_uuid, contactUuid: null, channel: conversationChannel(payload.channel_type) });
  await deps.conversations.record(em, opened.uuid, input);
  return opened.uuid;
}

/** One send per reply line, due when the agent's pacing says (and after the thread's earlier messages went); each line's delivery `pending` until sent. */
export async function queueReply(
  em: EntityManager,
  deps: InboundTurnDeps,
  tenant: TenantRef,
  address: ChannelAddress,
  to: string,
  lines: ReadonlyArray<{ uuid: string; content: string }>,
  reply: ReplyContext = {},
  /** The agent as the caller has just read it, if it has: not read again. */
  read?: AgentJson | null,
): Promise<void> {
  const replies = lines.filter((line) => line.content.trim() !== '');
  if (replies.length === 0) return;
  const agent = read !== undefined ? read : await deps.agents.getWithoutSlots(address.agent_uuid);
  // The agent's effective settings (defaults filled in); an agent deleted since the turn sends at once.
  const text = (agent as { settings?: { text?: PacingSettings } } | null)?.settings?.text ?? UNPACED;
  const connection = await findConnection(em, address.connection_uuid);
  const canType = !!(connection && deps.drivers.get(connection.provider)?.typing);
  const now = Date.now();
  const paced = paceReply(replies.map((line) => line.content), text);
  for (const [index, line] of replies.entries()) {
    const pace = paced[index];
    if (pace.showTyping && canType) {
      const typing: TypingPayload = { ...pick(address), ...reply, to };
      await deps.bus.publish(CHANNEL_TOPICS.typing, typing, { at: new Date(now + pace.typingAtMs) });
    }
    const send: SendPayload = { ...pick(address), ...reply, message_uuid: line.uuid, to, text: line.content, attempt: 1 };
    // Its recipient and its place (`seq`, in this order) make the line wait for the thread's earlier ones (outbound/send-order.ts).
    await boundQuery(
      em,
      'insert into channel_deliveries (uuid, tenant_uuid, created_at, updated_at, channel_uuid, external_id, recipient) values ($1, $2, now(), now(), $3, null, $4) on conflict (uuid) do nothing',
      [line.uuid, tenant.uuid, address.channel_uuid, to],
    );
    await deps.conversations.setDelivery(em, line.uuid, 'pending');
    await deps.bus.publish(CHANNEL_TOPICS.send, send, { at: new Date(now + pace.sendAtMs) });
  }
}

const UNPACED: PacingSettings = {
  timing_and_delay: { base_delay: 0, pause_before_reply: 0, typing_speed_wpm_min: 0, typing_speed_wpm_max: 0, delay_jitter_min: 0, delay_jitter_max: 0 },
  typing_simulation: { show_typing_indicator: false },
};

const pick = (address: ChannelAddress): ChannelAddress => ({
  channel_uuid: address.channel_uuid,
  agent_uuid: address.agent_uuid,
  connection_uuid: address.connection_uuid,
  channel_type: address.channel_type,
  hook_url: address.hook_url,
});
