import { createHmac } from 'node:crypto';
import type { Egress } from '../../../../../core/egress';
import { chatappDriver } from '../../../../../plugins/channels/drivers/chatapp';
import { connectionOf, driverContext, loopbackEgress, sendFailure } from '../driver-test-kit';
import { graphChallengeRequest, graphInboundRequest, whatsAppTextWebhook, whatsAppWebhook } from './graph-webhook';
import { startWhatsAppServer, type WhatsAppServer } from './whatsapp-server';

const APP_SECRET = 'whatsapp-app-secret-7f3a';
const VERIFY_TOKEN = 'verify-me-please';

let graph: WhatsAppServer;
let egress: Egress;

const credentials = () => ({
  phone_number_id: graph.state.phoneNumberId,
  business_account_id: '102290129340398',
  access_token: graph.state.accessToken,
  app_secret: APP_SECRET,
  verify_token: VERIFY_TOKEN,
});
const connection = () => connectionOf('chatapp', credentials());
const context = (overrides: Partial<ReturnType<typeof credentials>> = {}, apiBaseUrl = graph.apiBaseUrl) => driverContext('chatapp', { ...credentials(), ...overrides }, egress, apiBaseUrl);


beforeAll(async () => {
  graph = await startWhatsAppServer();
  egress = loopbackEgress();
});
afterAll(async () => {
  await egress?.close();
  await graph?.close();
});
beforeEach(() => {
  graph.state.sent.length = 0;
  graph.state.typing.length = 0;
  graph.state.failures.length = 0;
  graph.requests.length = 0;
});

describe('chatapp driver: X-Hub-Signature-256', () => {
  const payload = whatsAppTextWebhook({ phoneNumberId: '106540352242922', from: '16315551181', id: 'wamid.A1', text: 'Hi there' });

  it('accepts the HMAC-SHA256 of the raw body keyed with the app secret', () => {
    const request = graphInboundRequest(payload, null);
    // Computed here from Meta's documented algorithm, not with the driver's code.
    request.headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', APP_SECRET).update(request.rawBody).digest('hex')}`;
    expect(chatappDriver.verify(request, connection())).toBe(true);
  });

  it('refuses a signature made with another secret', () => {
    expect(chatappDriver.verify(graphInboundRequest(payload, 'another-secret'), connection())).toBe(false);
  });

  it('refuses a request without the header', () => {
    expect(chatappDriver.verify(graphInboundRequest(payload, null), connection())).toBe(false);
  });

  it('refuses a body changed after it was signed', () => {
    const signed = graphInboundRequest(payload, APP_SECRET);
    const tampered = Buffer.from(signed.rawBody.toString('utf8').replace('Hi there', 'Hi thera'));
    expect(chatappDriver.verify(graphInboundRequest(payload, APP_SECRET, { rawBody: tampered }), connection())).toBe(false);
    expect(chatappDriver.verify(signed, connection())).toBe(true);
  });

  it('refuses malformed headers: the old sha1 scheme, a truncated digest, no prefix', () => {
    const body = graphInboundRequest(payload, null).rawBody;
    const hex = createHmac('sha256', APP_SECRET).update(body).digest('hex');
    const sha1 = `sha1=${createHmac('sha1', APP_SECRET).update(body).digest('hex')}`;
    for (const signature of [sha1, `sha256=${hex.slice(0, 40)}`, hex, 'sha256=', `sha256=${hex}00`]) {
      expect(chatappDriver.verify(graphInboundRequest(payload, null, { signature }), connection())).toBe(false);
    }
  });
});

describe('chatapp driver: the verification challenge', () => {
  it('echoes hub.challenge as text when the verify token matches', () => {
    const answer = chatappDriver.challenge!(graphChallengeRequest({ 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1158201444' }), connection());
    expect(answer).toEqual({ status: 200, contentType: 'text/plain', body: '1158201444' });
  });

  it('answers 403 for a wrong token, another mode or no challenge', () => {
    const queries: Array<Record<string, string>> = [
      { 'hub.mode': 'subscribe', 'hub.verify_token': 'guess', 'hub.challenge': '42' },
      { 'hub.mode': 'unsubscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '42' },
      { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN },
      {},
    ];
    for (const query of queries) {
      const answer = chatappDriver.challenge!(graphChallengeRequest(query), connection());
      expect(answer?.status).toBe(403);
      expect(answer?.body).not.toContain('42');
    }
  });
});

describe('chatapp driver: parse', () => {
  const parse = (payload: unknown) => chatappDriver.parse(graphInboundRequest(payload, APP_SECRET), connection());
  const phoneNumberId = () => graph.state.phoneNumberId;

  it('reads a text message with the sender profile name, numbers as E.164', () => {
    const events = parse(whatsAppTextWebhook({ phoneNumberId: phoneNumberId(), from: '16315551181', id: 'wamid.TEXT1', text: 'Where is my order?', name: 'Kerry Fisher' }));
    expect(events).toEqual([{ kind: 'message', externalId: 'wamid.TEXT1', from: '+16315551181', to: '+15550001111', text: 'Where is my order?', profileName: 'Kerry Fisher' }]);
  });

  it('reads media as their type, media id and mime type, the caption as text', () => {
    const base = { from: '16315551181', timestamp: '1700000000' };
    const events = parse(
      whatsAppWebhook({
        phoneNumberId: phoneNumberId(),
        contacts: [{ profile: { name: 'Kerry' }, wa_id: '16315551181' }],
        messages: [
          { ...base, id: 'wamid.IMG', type: 'image', image: { caption: 'the damage', mime_type: 'image/jpeg', sha256: 'abc', id: '1003383421387256' } },
          { ...base, id: 'wamid.AUD', type: 'audio', audio: { mime_type: 'audio/ogg; codecs=opus', sha256: 'def', id: '1003383421387257', voice: true } },
          { ...base, id: 'wamid.VID', type: 'video', video: { mime_type: 'video/mp4', sha256: 'ghi', id: '1003383421387258' } },
          { ...base, id: 'wamid.DOC', type: 'document', document: { filename: 'invoice.pdf', mime_type: 'application/pdf', sha256: 'jkl', id: '1003383421387259' } },
          { ...base, id: 'wamid.STK', type: 'sticker', sticker: { mime_type: 'image/webp', sha256: 'mno', id: '1003383421387260', animated: false } },
        ],
      }),
    );
    expect(events.map((event) => (event.kind === 'message' ? [event.externalId, event.text, event.media, event.profileName] : null))).toEqual([
      ['wamid.IMG', 'the damage', [{ type: 'image', id: '1003383421387256', mimeType: 'image/jpeg' }], 'Kerry'],
      ['wamid.AUD', null, [{ type: 'audio', id: '1003383421387257', mimeType: 'audio/ogg; codecs=opus' }], 'Kerry'],
      ['wamid.VID', null, [{ type: 'video', id: '1003383421387258', mimeType: 'video/mp4' }], 'Kerry'],
      ['wamid.DOC', null, [{ type: 'document', id: '1003383421387259', mimeType: 'application/pdf' }], 'Kerry'],
      ['wamid.STK', null, [{ type: 'sticker', id: '1003383421387260', mimeType: 'image/webp' }], 'Kerry'],
    ]);
  });

  it('reads a location as a geo: URI, its name and address as text', () => {
    const [event] = parse(
      whatsAppWebhook({
        phoneNumberId: phoneNumberId(),
        messages: [{ from: '16315551181', id: 'wamid.LOC', timestamp: '1700000000', type: 'location', location: { latitude: 37.483307, longitude: -122.148981, name: 'Pablo Morales', address: '1 Hacker Way' } }],
      }),
    );
    expect(event).toEqual({ kind: 'message', externalId: 'wamid.LOC', from: '+16315551181', to: '+15550001111', text: 'Pablo Morales, 1 Hacker Way', media: [{ type: 'location', url: 'geo:37.483307,-122.148981' }] });
  });

  it('reads quick-reply buttons and interactive replies as the text tapped; reactions and unsupported types are left out', () => {
    const base = { from: '16315551181', timestamp: '1700000000' };
    const events = parse(
      whatsAppWebhook({
        phoneNumberId: phoneNumberId(),
        messages: [
          { ...base, id: 'wamid.BTN', type: 'button', button: { text: 'Yes, reschedule', payload: 'RESCHEDULE' } },
          { ...base, id: 'wamid.INT', type: 'interactive', interactive: { type: 'list_reply', list_reply: { id: 'r2', title: 'Tuesday 10am' } } },
          { ...base, id: 'wamid.REA', type: 'reaction', reaction: { message_id: 'wamid.OURS', emoji: '👍' } },
          { ...base, id: 'wamid.UNS', type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown' }] },
        ],
      }),
    );
    expect(events.map((event) => (event.kind === 'message' ? [event.externalId, event.text] : null))).toEqual([
      ['wamid.BTN', 'Yes, reschedule'],
      ['wamid.INT', 'Tuesday 10am'],
    ]);
  });

  it('reads statuses as receipts, a failure with WhatsApp’s reason', () => {
    const status = (id: string, state: string, extra: Record<string, unknown> = {}) => ({ id, status: state, timestamp: '1700000001', recipient_id: '16315551181', ...extra });
    const events = parse(
      whatsAppWebhook({
        phoneNumberId: phoneNumberId(),
        statuses: [
          status('wamid.S1', 'sent', { conversation: { id: 'c1', origin: { type: 'service' } }, pricing: { billable: true, category: 'service' } }),
          status('wamid.S1', 'delivered'),
          status('wamid.S1', 'read'),
          status('wamid.S2', 'failed', { errors: [{ code: 131047, title: 'Re-engagement message', message: 'Re-engagement message', error_data: { details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.' } }] }),
          status('wamid.S3', 'deleted'),
        ],
      }),
    );
    expect(events).toEqual([
      { kind: 'receipt', externalId: 'wamid.S1', status: 'sent' },
      { kind: 'receipt', externalId: 'wamid.S1', status: 'delivered' },
      { kind: 'receipt', externalId: 'wamid.S1', status: 'read' },
      {
        kind: 'receipt',
        externalId: 'wamid.S2',
        status: 'failed',
        reason: 'Re-engagement message: Message failed to send because more than 24 hours have passed since the customer last replied to this number. (code 131047)',
      },
    ]);
  });

  it('leaves out what another phone number of the account received, and other webhook fields', () => {
    const other = whatsAppTextWebhook({ phoneNumberId: '999999999999999', from: '16315551181', id: 'wamid.OTHER', text: 'not for us' });
    expect(parse(other)).toEqual([]);
    const templateUpdate = { object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'message_template_status_update', value: { event: 'APPROVED' } }] }] };
    expect(parse(templateUpdate)).toEqual([]);
  });

  it('reads a template status update of the connection’s business account; other accounts’ and other events are left out', () => {
    const update = (account: string, value: Record<string, unknown>) => ({ object: 'whatsapp_business_account', entry: [{ id: account, time: 1700000000, changes: [{ field: 'message_template_status_update', value }] }] });
    const template = { message_template_id: 1689556908129832, message_template_name: 'order_update', message_template_language: 'en_US' };
    expect(parse(update('102290129340398', { ...template, event: 'REJECTED', reason: 'INCORRECT_CATEGORY' }))).toEqual([
      { kind: 'template_status', businessAccountId: '102290129340398', templateId: '1689556908129832', status: 'REJECTED', reason: 'INCORRECT_CATEGORY' },
    ]);
    expect(parse(update('102290129340398', { ...template, event: 'APPROVED', reason: 'NONE' }))).toEqual([
      { kind: 'template_status', businessAccountId: '102290129340398', templateId: '1689556908129832', status: 'APPROVED', reason: null },
    ]);
    expect(parse(update('555555555555555', { ...template, event: 'APPROVED', reason: 'NONE' }))).toEqual([]);
    expect(parse(update('102290129340398', { ...template, event: 'ARCHIVED' }))).toEqual([]);
  });

  it('throws for a body that is not a webhook', () => {
    expect(() => parse({ hello: 'world' })).toThrow(/entry/);
    expect(() => parse([1, 2])).toThrow(/entry/);
  });
});

describe('chatapp driver: send', () => {
  it('posts a text message with the bearer token and answers the wamid', async () => {
    const result = await chatappDriver.send(context(), { to: '+16315551181', text: 'Your order ships today.', idempotencyKey: 'delivery-1' });
    expect(graph.state.sent).toHaveLength(1);
    const [sent] = graph.state.sent;
    expect(result).toEqual({ externalId: sent.id });
    expect(sent.request).toEqual({ messaging_product: 'whatsapp', recipient_type: 'individual', to: '16315551181', type: 'text', text: { body: 'Your order ships today.' } });
    const [request] = graph.requests;
    expect(request.headers.authorization).toBe(`Bearer ${graph.state.accessToken}`);
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(request.path).toBe(`/v21.0/${graph.state.phoneNumberId}/messages`);
  });

  it('fails without retry on a 4xx, with Graph’s message', async () => {
    graph.failNext({ status: 400, code: 131030, message: '(#131030) Recipient phone number not in allowed list' });
    const error = await sendFailure(chatappDriver.send(context(), { to: '+16315551181', text: 'hi', idempotencyKey: 'k' }));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('Recipient phone number not in allowed list');
    expect(error.message).toContain('131030');
    expect(graph.state.sent).toHaveLength(0);
  });

  it('fails without retry when the token is wrong (Graph code 190)', async () => {
    const error = await sendFailure(chatappDriver.send(context({ access_token: 'EAAG-revoked' }), { to: '+16315551181', text: 'hi', idempotencyKey: 'k' }));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('Invalid OAuth access token');
  });

  it('marks a 429 retryable with its Retry-After, and a 5xx retryable', async () => {
    graph.failNext({ status: 429, code: 130429, message: '(#130429) Rate limit hit', headers: { 'retry-after': '7' } }, { status: 503, code: 2, message: 'Service temporarily unavailable' });
    const limited = await sendFailure(chatappDriver.send(context(), { to: '+16315551181', text: 'hi', idempotencyKey: 'k' }));
    expect([limited.retryable, limited.retryAfterSeconds]).toEqual([true, 7]);
    expect(limited.message).toContain('Rate limit hit');
    const unavailable = await sendFailure(chatappDriver.send(context(), { to: '+16315551181', text: 'hi', idempotencyKey: 'k' }));
    expect(unavailable.retryable).toBe(true);
    expect(graph.state.sent).toHaveLength(0);
    // One request each: the driver leaves retries to the channels plugin.
    expect(graph.requests).toHaveLength(2);
  });

  it('marks Graph rate-limit codes retryable even under a 400', async () => {
    for (const code of [4, 80007, 130429, 131056]) {
      graph.failNext({ status: 400, code, message: `(#${code}) too many calls` });
      const error = await sendFailure(chatappDriver.send(context(), { to: '+16315551181', text: 'hi', idempotencyKey: 'k' }));
      expect([code, error.retryable]).toEqual([code, true]);
    }
  });

  it('marks a network failure retryable', async () => {
    const closed = await startWhatsAppServer();
    const base = closed.apiBaseUrl;
    await closed.close();
    const error = await sendFailure(chatappDriver.send(context({}, base), { to: '+16315551181', text: 'hi', idempotencyKey: 'k' }));
    expect(error.retryable).toBe(true);
  });

  it('refuses through the fake what the Cloud API refuses: text over 4096 characters', async () => {
    const error = await sendFailure(chatappDriver.send(context(), { to: '+16315551181', text: 'x'.repeat(4097), idempotencyKey: 'k' }));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('4096');
  });
});

describe('chatapp driver: typing', () => {
  it('marks the customer’s message read with a typing indicator', async () => {
    // The contract's typing(context, to) has no message id yet: the driver takes it as a third argument (see its doc).
    const typing = chatappDriver.typing as (context: unknown, to: string, replyTo?: string) => Promise<void>;
    await typing(context(), '+16315551181', 'wamid.CUSTOMER1');
    expect(graph.state.typing).toEqual([{ messageId: 'wamid.CUSTOMER1', request: { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.CUSTOMER1', typing_indicator: { type: 'text' } } }]);
    expect(graph.requests[0].headers.authorization).toBe(`Bearer ${graph.state.accessToken}`);
  });

  it('sends nothing without the inbound message id: WhatsApp shows typing only on a message', async () => {
    await chatappDriver.typing!(context(), '+16315551181');
    expect(graph.requests).toHaveLength(0);
  });
});

describe('chatapp driver: credentials test', () => {
  it('reads the phone number with the token', async () => {
    await expect(chatappDriver.test!(credentials(), { egress, apiBaseUrl: graph.apiBaseUrl })).resolves.toEqual({ valid: true });
    expect(graph.requests[0].path).toBe(`/v21.0/${graph.state.phoneNumberId}`);
  });

  it('answers Graph’s reason for a bad token or an unknown number', async () => {
    const badToken = await chatappDriver.test!({ ...credentials(), access_token: 'nope' }, { egress, apiBaseUrl: graph.apiBaseUrl });
    expect(badToken).toEqual({ valid: false, message: expect.stringContaining('Invalid OAuth access token') });
    const unknown = await chatappDriver.test!({ ...credentials(), phone_number_id: '1' }, { egress, apiBaseUrl: graph.apiBaseUrl });
    expect(unknown).toEqual({ valid: false, message: expect.stringContaining("Object with ID '1' does not exist") });
  });
});
