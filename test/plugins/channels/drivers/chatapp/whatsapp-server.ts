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
 * refused unless the template exists in that language and its header (text values or a
 * media link), body (text, currency or date_time values) and buttons (quick reply payloads, URL suffixes) are filled as the
 * template was made; accepted ones are recorded in `state.templateSends`.
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
  /** Template messages accepted, in order: the template, the body's values (a currency's or date_time's fallback text), the header's parameter and the buttons' values as sent. */
  templateSends: Array<{
    id: string;
    to: string;
    name: string;
    language: string;
    bodyValues: string[];
    header?: Record<string, unknown>;
    buttons: Array<{ index: number; sub_type: string; value: string }>;
    request: Record<string, unknown>;
  }>;
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
  /**
   * The platform reviews one of its templates: its status becomes `event` (`APPROVED`,
   * `REJECTED`, `PAUSED`, `DISABLED`), and the answer is the `message_template_status_update`
   * webhook the platform sends for it (`{object, entry: [{id: waba_id, time, changes: [{field,
   * value: {event, message_template_id, message_template_name, message_template_language,
   * reason}}]}]}`), to be signed and delivered.
   */
  reviewTemplate(templateId: string, event: string, reason?: string): Record<string, unknown>;
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

const paramsMismatch = (details: string): VendorReply => graphErrorReply(400, { code: 132000, message: 'Number of parameters does not match the expected number of params', details });
const formatMismatch = (details: string): VendorReply => graphErrorReply(400, { code: 132012, message: 'Parameter format does not match format in the created template', details });
const MEDIA_FORMATS = ['IMAGE', 'VIDEO', 'DOCUMENT'];

/**
 * Why one parameter of a text header or the body is refused: a header takes `text`
 * parameters; the body also the localised ones, `{type: 'currency', currency:
 * {fallback_value, code (ISO 4217), amount_1000 (an integer)}}` and `{type: 'date_time',
 * date_time: {fallback_value}}`, each with all its members.
 */
function parameterRefusal(component: string, parameter: Record<string, unknown>): VendorReply | null {
  if (parameter.type === 'text') return typeof parameter.text === 'string' && parameter.text !== '' ? null : invalidParameter(`Invalid parameter: ${component} text parameter needs text.`);
  if (component !== 'body' || (parameter.type !== 'currency' && parameter.type !== 'date_time')) return formatMismatch(`${component}: parameter type ${String(parameter.type)} is not accepted here`);
  const inner = parameter[parameter.type];
  if (!isRecord(inner) || typeof inner.fallback_value !== 'string' || inner.fallback_value === '') return invalidParameter(`The parameter ${parameter.type}['fallback_value'] is required.`);
  if (parameter.type === 'date_time') return null;
  if (typeof inner.code !== 'string' || !/^[A-Z]{3}$/.test(inner.code)) return invalidParameter("Invalid parameter: currency['code'] must be an ISO 4217 currency code.");
  if (typeof inner.amount_1000 !== 'number' || !Number.isInteger(inner.amount_1000)) return invalidParameter("Invalid parameter: currency['amount_1000'] must be an integer.");
  return null;
}

/** What a parameter shows: its text, or a localised value's fallback text (the Cloud API always shows that). */
const parameterValue = (parameter: Record<string, unknown>): string => (parameter.type === 'text' ? String(parameter.text) : String((parameter[String(parameter.type)] as Record<string, unknown>).fallback_value));

/**
 * A template send: the template must exist in that language; the header, body and each
 * button must be filled as the template was made. A text header takes text parameters and
 * the body text, currency or date_time ones (parameterRefusal), one per placeholder; a media header (IMAGE, VIDEO, DOCUMENT) takes one
 * parameter of its type with a `link`; a button is `{type: 'button', sub_type, index:
 * '<n>', parameters}`: a QUICK_REPLY one a `payload` parameter, a URL one whose url has
 * `{{1}}` a `text` parameter (the suffix), which it must be given.
 */
function handleTemplateSend(body: Record<string, unknown>, to: string, state: WhatsAppState): VendorReply {
  const template = isRecord(body.template) ? body.template : null;
  const language = template && isRecord(template.language) ? template.language.code : undefined;
  if (!template || typeof template.name !== 'string' || typeof language !== 'string') return invalidParameter("The parameter template['name'] and template['language']['code'] are required.");
  const known = state.templates.find((candidate) => candidate.name === template.name && candidate.language === language);
  if (!known) return graphErrorReply(404, { code: 132001, message: 'Template name does not exist in the translation', details: `template name (${template.name}) does not exist in ${language}` });
  const given = Array.isArray(template.components) ? template.components.filter(isRecord) : [];
  const unknownType = given.find((component) => !['header', 'body', 'button'].includes(String(component.type)));
  if (unknownType) return invalidParameter(`Invalid parameter: component type ${String(unknownType.type)}.`);
  let bodyValues: string[] = [];
  let header: Record<string, unknown> | undefined;
  for (const component of known.components) {
    const type = String(component.type).toLowerCase();
    if (type === 'buttons') continue;
    const sent = given.find((candidate) => candidate.type === type);
    const parameters = Array.isArray(sent?.parameters) ? sent!.parameters.filter(isRecord) : [];
    const format = String(component.format ?? 'TEXT').toUpperCase();
    if (type === 'header' && MEDIA_FORMATS.includes(format)) {
      const kind = format.toLowerCase();
      const media = parameters[0]?.[kind];
      if (parameters.length !== 1) return paramsMismatch(`header: number of params (${parameters.length}) does not match the expected number of params (1)`);
      if (parameters[0].type !== kind || !isRecord(media) || typeof media.link !== 'string' || !/^https?:\/\//.test(media.link)) return formatMismatch(`header: expected a ${kind} parameter with a link`);
      header = parameters[0];
      continue;
    }
    const expected = placeholderCount(component.text);
    for (const parameter of parameters) {
      const refused = parameterRefusal(type, parameter);
      if (refused) return refused;
    }
    const values = parameters.map(parameterValue);
    if (values.length !== expected) return paramsMismatch(`${type}: number of localizable_params (${values.length}) does not match the expected number of params (${expected})`);
    if (type === 'body') bodyValues = values;
    if (type === 'header' && values.length > 0) header = parameters[0];
  }
  if (given.some((component) => component.type === 'header') && !known.components.some((component) => String(component.type).toLowerCase() === 'header')) {
    return paramsMismatch('header: the template has no header');
  }
  const templateButtons = (known.components.find((component) => String(component.type).toLowerCase() === 'buttons')?.buttons as unknown[] | undefined) ?? [];
  const buttons: Array<{ index: number; sub_type: string; value: string }> = [];
  for (const component of given.filter((candidate) => candidate.type === 'button')) {
    const index = typeof component.index === 'string' && /^\d+$/.test(component.index) ? Number(component.index) : -1;
    const own = templateButtons[index];
    const parameter = Array.isArray(component.parameters) && component.parameters.length === 1 && isRecord(component.parameters[0]) ? component.parameters[0] : null;
    if (!isRecord(own)) return invalidParameter(`Invalid parameter: button index ${String(component.index)}.`);
    if (component.sub_type === 'quick_reply' && own.type === 'QUICK_REPLY' && parameter?.type === 'payload' && typeof parameter.payload === 'string') {
      buttons.push({ index, sub_type: 'quick_reply', value: parameter.payload });
    } else if (component.sub_type === 'url' && own.type === 'URL' && placeholderCount(own.url) === 1 && parameter?.type === 'text' && typeof parameter.text === 'string') {
      buttons.push({ index, sub_type: 'url', value: parameter.text });
    } else {
      return formatMismatch(`button ${index}: the parameter does not fit the template's ${String(own.type)} button`);
    }
  }
  const missing = templateButtons.findIndex((own, index) => isRecord(own) && own.type === 'URL' && placeholderCount(own.url) === 1 && !buttons.some((button) => button.index === index));
  if (missing >= 0) return paramsMismatch(`button ${missing}: number of params (0) does not match the expected number of params (1)`);
  const id = `wamid.${randomBytes(18).toString('base64url')}`;
  state.templateSends.push({ id, to, name: known.name, language, bodyValues, header, buttons, request: body });
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
    reviewTemplate: (templateId: string, event: string, reason = 'NONE') => {
      const template = state.templates.find((candidate) => candidate.id === templateId);
      if (template) template.status = event;
      const value = {
        event,
        // A number in Meta's payload, as the id a template create answered.
        message_template_id: Number(templateId),
        message_template_name: template?.name ?? 'unknown_template',
        message_template_language: template?.language ?? 'en_US',
        reason,
      };
      return { object: 'whatsapp_business_account', entry: [{ id: state.wabaId, time: Math.floor(Date.now() / 1000), changes: [{ value, field: 'message_template_status_update' }] }] };
    },
  });
}
