import { randomBytes } from 'node:crypto';
import { startVendorServer, type VendorReply, type VendorRequest, type VendorServer } from '../../../../../plugins/flows/testing-kit';
import { graphErrorReply, isRecord, jsonBody, refuseToken, takeFailure, unknownObject, type FailureScript } from '../chatapp/graph-fake';

/**
 * The Messenger Platform Send API as the social driver uses it, played on loopback from
 * Meta's documented shapes: `POST /{version}/{page-id}/messages` (or `/me/messages`, the
 * page of the token) with `{recipient: {id}, messaging_type, message: {text}}` ->
 * `{recipient_id, message_id}`, or `{recipient: {id}, sender_action}` -> `{recipient_id}`;
 * and `GET /{version}/{page-id}`. The page access token is checked (in the Authorization
 * header or the `access_token` parameter, as Graph takes it); what we send is recorded in
 * `state.sent` and `state.actions`.
 *
 * Not played: attachments, templates, message tags, the 24-hour window.
 */

export interface MessengerState extends FailureScript {
  accessToken: string;
  pageId: string;
  sent: Array<{ id: string; recipientId: string; text: string; messagingType: string; request: Record<string, unknown> }>;
  /** Sender actions (typing_on, typing_off, mark_seen), in order. */
  actions: Array<{ recipientId: string; action: string }>;
}

export type MessengerServer = VendorServer<MessengerState> & {
  /** The API base URL to configure (`SOCIAL_API_BASE_URL`): the server's URL with a Graph version. */
  apiBaseUrl: string;
  /** The next requests answer these instead, in Graph's error envelope. */
  failNext(...failures: Array<{ status: number; code: number; message: string; error_subcode?: number; headers?: Record<string, string> }>): void;
};

const TEXT_LIMIT = 2000;
const MESSAGING_TYPES = new Set(['RESPONSE', 'UPDATE', 'MESSAGE_TAG']);
const SENDER_ACTIONS = new Set(['typing_on', 'typing_off', 'mark_seen']);

const invalidParameter = (message: string, subcode?: number): VendorReply =>
  graphErrorReply(400, { code: 100, type: 'OAuthException', message: `(#100) ${message}`, ...(subcode !== undefined ? { error_subcode: subcode } : {}) });

function handleMessages(body: Record<string, unknown>, state: MessengerState): VendorReply {
  const recipientId = isRecord(body.recipient) ? body.recipient.id : undefined;
  if (typeof recipientId !== 'string' || recipientId === '') return invalidParameter('The parameter recipient is required');
  if (body.sender_action !== undefined) {
    if (typeof body.sender_action !== 'string' || !SENDER_ACTIONS.has(body.sender_action)) return invalidParameter('Param sender_action must be one of {MARK_SEEN, TYPING_ON, TYPING_OFF}');
    if (body.message !== undefined) return invalidParameter('sender_action cannot be sent with message');
    state.actions.push({ recipientId, action: body.sender_action });
    return { status: 200, body: { recipient_id: recipientId } };
  }
  if (typeof body.messaging_type !== 'string' || !MESSAGING_TYPES.has(body.messaging_type)) return invalidParameter('Param messaging_type must be one of {RESPONSE, UPDATE, MESSAGE_TAG}');
  const text = isRecord(body.message) ? body.message.text : undefined;
  if (typeof text !== 'string' || text === '') return invalidParameter('The parameter message[text] is required');
  if (text.length > TEXT_LIMIT) return invalidParameter(`Param message[text] must be UTF-8 encoded and at most ${TEXT_LIMIT} characters`);
  const id = `m_${randomBytes(18).toString('base64url')}`;
  state.sent.push({ id, recipientId, text, messagingType: body.messaging_type, request: body });
  return { status: 200, body: { recipient_id: recipientId, message_id: id } };
}

function pageOf(request: VendorRequest, state: MessengerState): string {
  return request.params.pageId === 'me' ? state.pageId : request.params.pageId;
}

export async function startMessengerServer(options: { accessToken?: string; pageId?: string; version?: string } = {}): Promise<MessengerServer> {
  const version = options.version ?? 'v21.0';
  const state: MessengerState = {
    accessToken: options.accessToken ?? `EAAP${randomBytes(12).toString('hex')}`,
    pageId: options.pageId ?? '1234567890123456',
    sent: [],
    actions: [],
    failures: [],
  };
  const server = await startVendorServer<MessengerState>(
    {
      [`POST /${version}/:pageId/messages`]: (request, current) => {
        const refused = refuseToken(request, current.accessToken);
        if (refused) return refused;
        const page = pageOf(request, current);
        if (page !== current.pageId) return unknownObject(page);
        const failure = takeFailure(current);
        if (failure) return failure;
        const body = jsonBody(request);
        return body ? handleMessages(body, current) : invalidParameter('The request body must be JSON');
      },
      [`GET /${version}/:pageId`]: (request, current) => {
        const refused = refuseToken(request, current.accessToken);
        if (refused) return refused;
        const page = pageOf(request, current);
        if (page !== current.pageId) return unknownObject(page);
        return { status: 200, body: { id: current.pageId, name: 'Switchboard Test Page' } };
      },
    },
    { state },
  );
  return Object.assign(server, {
    apiBaseUrl: `${server.url}/${version}`,
    failNext: (...failures: Parameters<MessengerServer['failNext']>) => {
      for (const { status, headers, ...error } of failures) state.failures.push(graphErrorReply(status, error, headers));
    },
  });
}
