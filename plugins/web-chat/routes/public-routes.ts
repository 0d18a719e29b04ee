import {
  ConflictError,
  DataEnvelope,
  defineRoute,
  EventStream,
  Reply,
  wantsEventStream,
  type AnyRoute,
  type HttpMethod,
  type TenantService,
} from '../../../core';
import type { ConversationWriter } from '../../conversations';
import type { ChatTurns } from '../../runtime';
import { isOwnOrigin, preflightHeaders } from '../cors';
import { WebChatVisitor } from '../entities';
import { ConversationParams, KeyParams, OpenedConversation, VisitorHistory, VisitorMessage, VisitorTurn } from '../schemas';
import type { VisitorAccess } from '../visitor-access';
import { hashVisitorToken, newVisitorToken } from '../visitor-tokens';

export interface PublicRouteDeps {
  access: VisitorAccess;
  tenants: TenantService;
  conversations: ConversationWriter;
  turns: ChatTurns;
}

const BASE = '/public/v1/chat/:public_key/conversations';
const MESSAGES = `${BASE}/:uuid/messages`;
const tags = ['web-chat'];
/** What a visitor sees of the conversation so far. */
const HISTORY_LIMIT = 200;
/** A CORS preflight is answered by routes of ours: the kernel's own OPTIONS answer carries no CORS grant. */
const OPTIONS: HttpMethod = 'OPTIONS';

/**
 * The routes a visitor's browser calls, with no tenant and no API token: the channel's
 * public key names the tenant and the agent, the visitor token the conversation. They
 * are `public` routes, so the kernel's per-IP rate limit (RATE_LIMIT_HOOK_IP_RPS) and
 * per-hook limit apply to them (429 with Retry-After).
 */
export function publicChatRoutes({ access, tenants, conversations, turns }: PublicRouteDeps): AnyRoute[] {
  const preflight = (path: string, params: typeof KeyParams | typeof ConversationParams) =>
    defineRoute({
      method: OPTIONS,
      path,
      summary: 'CORS preflight of the web chat routes',
      description: 'Grants the channel’s `allowed_origins` (and this server’s own pages); any other origin is a 403 without a grant.',
      tags,
      auth: 'public',
      params,
      transactional: false,
      status: 204,
      errors: [403, 404],
      handler: async ({ params, req }) => new Reply(204, undefined, preflightHeaders((await access.channel(req, params.public_key)).cors)),
    });

  const open = defineRoute({
    method: 'POST',
    path: BASE,
    summary: 'Open a web chat conversation (a visitor)',
    description:
      'Opens a conversation on channel `chat` with the agent of the `web_chat` channel whose `public_key` is in the path, and answers the ' +
      '`visitor_token` that continues and reads it (keep it: only its hash is stored). No API token: the key names the agent. ' +
      'From a browser, the page’s origin must be one of the channel’s `config.allowed_origins` (or this server’s hosted chat page): another origin is a 403 with no CORS grant. ' +
      'A channel switched off, or an agent that is not active: 409.',
    tags,
    auth: 'public',
    params: KeyParams,
    status: 201,
    transactional: false,
    response: DataEnvelope(OpenedConversation),
    errors: [403, 404, 409],
    handler: async ({ params, req, em }) => {
      const { channel, cors } = await access.open(req, params.public_key);
      const token = newVisitorToken();
      const origin = req.get('origin');
      const label = origin && !isOwnOrigin(req, origin) ? `Web chat on ${origin}` : 'Web chat';
      const conversation = await tenants.run(channel.tenant, () =>
        em.transactional(async (tx) => {
          const opened = await conversations.open(tx as typeof em, { agentUuid: channel.agent_uuid, contactUuid: null, channel: 'chat', channelLabel: label });
          tx.create(WebChatVisitor, { conversationUuid: opened.uuid, channelUuid: channel.channel_uuid, tokenHash: hashVisitorToken(token) });
          return opened;
        }),
      );
      return new Reply(201, { data: { conversation_uuid: conversation.uuid, visitor_token: token } }, cors);
    },
  });

  const say = defineRoute({
    method: 'POST',
    path: MESSAGES,
    summary: 'Say something in a web chat conversation (a visitor)',
    description:
      'One turn of the agent, as `POST /api/v1/agents/{uuid}/chat` takes it, with `Authorization: Bearer <visitor_token>` (401 without the token of this conversation). ' +
      'With `Accept: text/event-stream` the turn streams as Server-Sent Events: `delta` `{text}`, `tool_call`, then `done` with the JSON answer (or `error`). ' +
      'A conversation that is closed, a channel switched off or an agent that is not active: 409.',
    tags,
    auth: 'public',
    params: ConversationParams,
    body: VisitorMessage,
    // A turn waits for the model: it opens its own short transactions (runtime chat-turns.ts).
    transactional: false,
    response: DataEnvelope(VisitorTurn),
    streams: { description: 'Events `delta` `{text}`, `tool_call`, then `done` with the JSON answer, or `error` with the error envelope' },
    errors: [401, 403, 404, 409],
    handler: async ({ params, body, req, em }) => {
      const { channel, cors } = await access.open(req, params.public_key);
      await access.visitor(req, em, channel, params.uuid);
      const request = { message: body.message, conversation_uuid: params.uuid, channel: 'chat' as const };
      const take = (stream?: Parameters<ChatTurns['take']>[3]) => tenants.run(channel.tenant, () => turns.take(channel.tenant, channel.agent_uuid, request, stream));
      if (!wantsEventStream(req.headers.accept)) return new Reply(200, { data: await take() }, cors);
      // What can be refused with a status is refused before the stream's headers go out.
      const conversation = await tenants.run(channel.tenant, () => conversations.find(em, params.uuid));
      if (conversation?.status !== 'open') throw new ConflictError('This conversation is over: open a new one');
      return new EventStream(async (writer) => {
        const answer = { data: await take(writer) };
        writer.emit('done', answer);
        return answer;
      });
    },
  });

  const history = defineRoute({
    method: 'GET',
    path: MESSAGES,
    summary: 'Read a web chat conversation (a visitor)',
    description:
      'The visitor’s view of the conversation, with `Authorization: Bearer <visitor_token>`: its status and the last 200 text messages of the visitor and the agent, oldest first.',
    tags,
    auth: 'public',
    params: ConversationParams,
    response: DataEnvelope(VisitorHistory),
    errors: [401, 403, 404],
    handler: async ({ params, req, em }) => {
      const { channel, cors } = await access.channel(req, params.public_key);
      await access.visitor(req, em, channel, params.uuid);
      const [conversation, messages] = await tenants.run(channel.tenant, async () => [
        await conversations.find(em, params.uuid),
        // Tool messages and events are recorded too: read past them to find 200 the visitor said or was told.
        await conversations.history(em, params.uuid, HISTORY_LIMIT * 2),
      ] as const);
      const said = messages
        .filter((message) => message.message_type === 'text' && (message.sender === 'customer' || message.sender === 'agent'))
        .slice(-HISTORY_LIMIT)
        .map(({ message_uuid, sender, content, created_at }) => ({ message_uuid, sender, content, created_at }));
      return new Reply(200, { data: { conversation_uuid: params.uuid, status: conversation!.status, messages: said } }, cors);
    },
  });

  return [preflight(BASE, KeyParams), preflight(MESSAGES, ConversationParams), open, say, history];
}
