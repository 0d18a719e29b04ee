import { randomBytes } from 'node:crypto';
import { startVendorServer, type VendorReply, type VendorRequest, type VendorServer } from '../../../../../plugins/flows/testing-kit';
import { graphErrorReply, isRecord, jsonBody, refuseToken, takeFailure, unknownObject, type FailureScript } from './graph-fake';

/**
 * The WhatsApp Cloud API as the chatapp driver uses it, played on loopback from Meta's
 * documented shapes: `POST /{version}/{phone-number-id}/messages` sending a text
 * (`{messaging_product: 'whatsapp', recipient_type, to, type: 'text', text: {body}}` ->
 * `{messaging_product, contacts: [{input, wa_id}], messages: [{id}]}`) or marking a message
 * read with a typing indicator (`{messaging_product, status: 'read', message_id,
 * typing_indicator: {type: 'text'}}` -> `{success: true}`), and `GET /{version}/{phone-number-id}`.
 * Every call must carry the access token (Graph's code 190 otherwise); what we send is
 * recorded in `state.sent` and `state.typing`.
 *
 * Templates: `GET /{version}/{waba-id}/message_templates` (pages of `limit`, at most
 * `templatePageSize`, `{data, paging: {cursors: {before, after}, next}}`; `next` only while
 * more follow), `POST` creating one (`{name, category, language, components}` -> `{id,
 * status: 'PENDING', category}`), `DELETE ?name=` removing every language of the name,
 * and template sends (`type: 'template'`, `template: {name, language: {code}, components}`),
 * refused unless the template exists in that language and the body's values match its
 * placeholders; accepted ones are recorded in `state.templateSends`.
 *
 * Not played: media, interactive messages, the 24-hour window (the platform enforces it; we check it before sending).
 */

export interface WhatsAppState extends FailureScript {
  accessToken: string;
  phoneNumberId: string;
  displayPhoneNumber: string;
  /** Text messages accepted, in order, with the id answered. */
  sent: Array<{ id: string; to: string; body: string; request: Record<string, unknown> }>;
  /** Read receipts with a typing indicator, in order. */
  typing: Array<{ messageId: string; request: Record<string, unknown> }>;
  /** The business account whose templates the fake holds. */
  wabaId: string;
  templates: FakeTemplate[];
  /** The most templates one list page answers, whatever `limit` asks. */
  templatePageSize: number;
  /** Template messages accepted, in order: the template and the body's values as sent. */
  templateSends: Array<{ id: string; to: string; name: string; language: string; bodyValues: string[]; request: Record<string, unknown> }>;
}

export interface FakeTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  components: Array<Record<string, unknown>>;
}

export type WhatsAppServer = VendorServer<WhatsAppState> & {
  /** The API base URL to configure (`CHATAPP_API_BASE_URL`): the server's URL with a Graph version. */
  apiBaseUrl: string;
  /** The next requests answer these instead, in Graph's error envelope (`headers` such as Retry-After). */
  failNext(...failures: Array<{ status: number; code: number; message: string; error_subcode?: number; headers?: Record<string, string> }>): void;
};

const TEXT_LIMIT = 4096;

const invalidParameter = (message: string): VendorReply => graphErrorReply(400, { code: 100, type: 'OAuthException', message: `(#100) ${message}` });

function handleMessages(body: Record<string, unknown>, state: WhatsAppState): VendorReply {
  if (body.messaging_product !== 'whatsapp') return invalidParameter('The parameter messaging_product is required.');
  if (body.status !== undefined) {
    if (body.status !== 'read' || typeof body.message_id !== 'string' || body.message_id === '') return invalidParameter('Invalid parameter: status must be read with a message_id.');
    if (body.typing_indicator !== undefined && !(isRecord(body.typing_indicator) && body.typing_indicator.type === 'text')) return invalidParameter('Invalid parameter: typing_indicator.type must be text.');
    state.typing.push({ messageId: body.message_id, request: body });
    return { status: 200, body: { success: true } };
  }
  if (typeof body.to !== 'string' || !/^\+?\d{6,15}$/.test(body.to)) return invalidParameter('The parameter to is required and must be a phone number.');
  if (body.recipient_type !== undefined && body.recipient_type !== 'individual') return invalidParameter('Invalid parameter: recipient_type.');
  if (body.type === 'template') return handleTemplateSend(body, body.to, state);
  if (body.type !== 'text') return invalidParameter('This fake plays text and template messages only.');
  const text = isRecord(body.text) ? body.text.body : undefined;
  if (typeof text !== 'string' || text === '') return invalidParameter('The parameter text[\'body\'] is required.');
  if (text.length > TEXT_LIMIT) return invalidParameter(`Param text['body'] must be at most ${TEXT_LIMIT} characters long.`);
  const waId = body.to.replace(/^\+/, '');
  const id = `wamid.${randomBytes(18).toString('base64url')}`;
  state.sent.push({ id, to: body.to, body: text, request: body });
  return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: waId }], messages: [{ id }] } };
}

const placeholderCount = (text: unknown) => new Set([...String(text ?? '').matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map((match) => match[1])).size;

/** A template send: the template must exist in that language, and each component's values match its placeholders. */
function handleTemplateSend(body: Record<string, unknown>, to: string, state: WhatsAppState): VendorReply {
  const template = isRecord(body.template) ? body.template : null;
  const language = template && isRecord(template.language) ? template.language.code : undefined;
  if (!template || typeof template.name !== 'string' || typeof language !== 'string') return invalidParameter("The parameter template['name'] and template['language']['code'] are required.");
  const known = state.templates.find((candidate) => candidate.name === template.name && candidate.language === language);
  if (!known) return graphErrorReply(404, { code: 132001, message: 'Template name does not exist in the translation', details: `template name (${template.name}) does not exist in ${language}` });
  const given = Array.isArray(template.components) ? template.components.filter(isRecord) : [];
  let bodyValues: string[] = [];
  for (const component of known.components) {
    const type = String(component.type).toLowerCase();
    const expected = placeholderCount(component.text);
    const sent = given.find((candidate) => candidate.type === type);
    const values = Array.isArray(sent?.parameters) ? sent!.parameters.filter(isRecord).map((parameter) => (parameter.type === 'text' ? String(parameter.text ?? '') : '')) : [];
    if (values.length !== expected) {
      return graphErrorReply(400, { code: 132000, message: 'Number of parameters does not match the expected number of params', details: `${type}: number of localizable_params (${values.length}) does not match the expected number of params (${expected})` });
    }
    if (type === 'body') bodyValues = values;
  }
  const id = `wamid.${randomBytes(18).toString('base64url')}`;
  state.templateSends.push({ id, to, name: known.name, language, bodyValues, request: body });
  return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to.replace(/^\+/, '') }], messages: [{ id, message_status: 'accepted' }] } };
}

/** A page of the account's templates from the `after` cursor (an index, base64url), with `paging.next` only while more follow. */
function listTemplates(request: VendorRequest, state: WhatsAppState, url: string): VendorReply {
  const limit = Math.min(Number(request.query.get('limit') ?? 25) || 25, state.templatePageSize);
  const after = request.query.get('after');
  const start = after ? Number(Buffer.from(after, 'base64url').toString()) : 0;
  if (!Number.isInteger(start) || start < 0) return invalidParameter('Invalid parameter: after.');
  const page = state.templates.slice(start, start + limit);
  const cursor = (index: number) => Buffer.from(String(index)).toString('base64url');
  const end = start + page.length;
  const paging: Record<string, unknown> = { cursors: { before: cursor(start), after: cursor(end) } };
  if (end < state.templates.length) paging.next = `${url}?limit=${limit}&after=${cursor(end)}`;
  return { status: 200, body: { data: page, paging } };
}

function createTemplate(body: Record<string, unknown>, state: WhatsAppState): VendorReply {
  if (typeof body.name !== 'string' || !/^[a-z0-9_]{1,512}$/.test(body.name)) return invalidParameter('Invalid parameter: name must be lower-case letters, digits and underscores.');
  if (!['MARKETING', 'UTILITY', 'AUTHENTICATION'].includes(String(body.category))) return invalidParameter('Invalid parameter: category.');
  if (typeof body.language !== 'string' || body.language === '') return invalidParameter('The parameter language is required.');
  if (!Array.isArray(body.components) || !body.components.some((component) => isRecord(component) && component.type === 'BODY' && typeof component.text === 'string')) {
    return invalidParameter('The parameter components must include a BODY component with text.');
  }
  if (state.templates.some((template) => template.name === body.name && template.language === body.language)) {
    return graphErrorReply(400, { code: 100, error_subcode: 2388024, message: 'Invalid parameter', details: `Message template "${body.name}" already exists in ${body.language}.` });
  }
  const id = String(1_000_000_000_000 + state.templates.length + 1 + Math.floor(Math.random() * 1e9));
  state.templates.push({ id, name: body.name, language: body.language, status: 'PENDING', category: String(body.category), components: body.components.filter(isRecord) });
  return { status: 200, body: { id, status: 'PENDING', category: body.category } };
}

export async function startWhatsAppServer(
  options: { accessToken?: string; phoneNumberId?: string; displayPhoneNumber?: string; version?: string; wabaId?: string; templatePageSize?: number } = {},
): Promise<WhatsAppServer> {
  const version = options.version ?? 'v21.0';
  const state: WhatsAppState = {
    accessToken: options.accessToken ?? `EAAG${randomBytes(12).toString('hex')}`,
    phoneNumberId: options.phoneNumberId ?? '106540352242922',
    displayPhoneNumber: options.displayPhoneNumber ?? '15550001111',
    sent: [],
    typing: [],
    failures: [],
    wabaId: options.wabaId ?? '102290129340398',
    templates: [],
    templatePageSize: options.templatePageSize ?? 100,
    templateSends: [],
  };
  // Known once the server listens: `paging.next` is an absolute URL, as Graph gives it.
  let serverUrl = '';
  const templatesEdge = (request: VendorRequest, current: WhatsAppState): VendorReply | null => {
    const refused = refuseToken(request, current.accessToken);
    if (refused) return refused;
    if (request.params.wabaId !== current.wabaId) return unknownObject(request.params.wabaId);
    return takeFailure(current) ?? null;
  };
  const server = await startVendorServer<WhatsAppState>(
    {
      [`POST /${version}/:phoneNumberId/messages`]: (request, current) => {
        const refused = refuseToken(request, current.accessToken);
        if (refused) return refused;
        if (request.params.phoneNumberId !== current.phoneNumberId) return unknownObject(request.params.phoneNumberId);
        const failure = takeFailure(current);
        if (failure) return failure;
        const body = jsonBody(request);
        return body ? handleMessages(body, current) : invalidParameter('The request body must be JSON.');
      },
      [`GET /${version}/:wabaId/message_templates`]: (request, current) => templatesEdge(request, current) ?? listTemplates(request, current, `${serverUrl}/${version}/${current.wabaId}/message_templates`),
      [`POST /${version}/:wabaId/message_templates`]: (request, current) => {
        const stop = templatesEdge(request, current);
        if (stop) return stop;
        const body = jsonBody(request);
        return body ? createTemplate(body, current) : invalidParameter('The request body must be JSON.');
      },
      [`DELETE /${version}/:wabaId/message_templates`]: (request, current) => {
        const stop = templatesEdge(request, current);
        if (stop) return stop;
        const name = request.query.get('name');
        if (!name) return invalidParameter('The parameter name is required.');
        const before = current.templates.length;
        current.templates = current.templates.filter((template) => template.name !== name);
        if (current.templates.length === before) return graphErrorReply(400, { code: 100, error_subcode: 2593002, message: 'Message template not found', details: `No template named ${name}.` });
        return { status: 200, body: { success: true } };
      },
      [`GET /${version}/:phoneNumberId`]: (request, current) => {
        const refused = refuseToken(request, current.accessToken);
        if (refused) return refused;
        if (request.params.phoneNumberId !== current.phoneNumberId) return unknownObject(request.params.phoneNumberId);
        return { status: 200, body: { id: current.phoneNumberId, display_phone_number: current.displayPhoneNumber, verified_name: 'Switchboard Test' } };
      },
    },
    { state },
  );
  serverUrl = server.url;
  return Object.assign(server, {
    apiBaseUrl: `${server.url}/${version}`,
    failNext: (...failures: Parameters<WhatsAppServer['failNext']>) => {
      for (const { status, headers, ...error } of failures) state.failures.push(graphErrorReply(status, error, headers));
    },
  });
}
