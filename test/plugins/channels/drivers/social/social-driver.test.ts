import { createHmac } from 'node:crypto';
import type { Egress } from '../../../../../core/egress';
import { socialDriver } from '../../../../../plugins/channels/drivers/social';
import { connectionOf, driverContext, loopbackEgress, sendFailure } from '../driver-test-kit';
import { graphChallengeRequest, graphInboundRequest, messengerTextWebhook, messengerWebhook } from '../chatapp/graph-webhook';
import { startMessengerServer, type MessengerServer } from './messenger-server';

const APP_SECRET = 'messenger-app-secret-91c2';
const VERIFY_TOKEN = 'social-verify-token';
const PSID = '6729384756102938';

let graph: MessengerServer;
let egress: Egress;

const credentials = () => ({ page_id: graph.state.pageId, access_token: graph.state.accessToken, app_secret: APP_SECRET, verify_token: VERIFY_TOKEN });
const connection = () => connectionOf('social', credentials());
const context = (overrides: Partial<ReturnType<typeof credentials>> = {}) => driverContext('social', { ...credentials(), ...overrides }, egress, graph.apiBaseUrl);


beforeAll(async () => {
  graph = await startMessengerServer();
  egress = loopbackEgress();
});
afterAll(async () => {
  await egress?.close();
  await graph?.close();
});
beforeEach(() => {
  graph.state.sent.length = 0;
  graph.state.actions.length = 0;
  graph.state.failures.length = 0;
  graph.requests.length = 0;
});

describe('social driver: X-Hub-Signature-256', () => {
  const payload = messengerTextWebhook({ pageId: '1234567890123456', psid: PSID, mid: 'm_1', text: 'Héllo, are you open on Sunday?' });

  it('accepts the HMAC-SHA256 of the raw body keyed with the app secret', () => {
    const request = graphInboundRequest(payload, null);
    request.headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', APP_SECRET).update(request.rawBody).digest('hex')}`;
    expect(socialDriver.verify(request, connection())).toBe(true);
  });

  it('refuses a wrong secret, a missing header and a tampered body', () => {
    expect(socialDriver.verify(graphInboundRequest(payload, 'not-the-secret'), connection())).toBe(false);
    expect(socialDriver.verify(graphInboundRequest(payload, null), connection())).toBe(false);
    const signed = graphInboundRequest(payload, APP_SECRET);
    const tampered = Buffer.from(signed.rawBody.toString('utf8').replace('Sunday', 'Monday'));
    expect(socialDriver.verify(graphInboundRequest(payload, APP_SECRET, { rawBody: tampered }), connection())).toBe(false);
    expect(socialDriver.verify(signed, connection())).toBe(true);
  });

  it('checks the bytes received, not a re-serialisation (Meta escapes non-ASCII as \\uXXXX)', () => {
    const raw = Buffer.from(JSON.stringify(payload).replace('é', '\\u00e9'));
    const signature = `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;
    expect(socialDriver.verify(graphInboundRequest(payload, null, { rawBody: raw, signature }), connection())).toBe(true);
  });
});

describe('social driver: the verification challenge', () => {
  it('echoes hub.challenge for the right token, 403 otherwise', () => {
    const right = socialDriver.challenge!(graphChallengeRequest({ 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': 'CHALLENGE_ACCEPTED' }), connection());
    expect(right).toEqual({ status: 200, contentType: 'text/plain', body: 'CHALLENGE_ACCEPTED' });
    const wrong = socialDriver.challenge!(graphChallengeRequest({ 'hub.mode': 'subscribe', 'hub.verify_token': `${VERIFY_TOKEN}x`, 'hub.challenge': 'CHALLENGE_ACCEPTED' }), connection());
    expect(wrong).toEqual({ status: 403, contentType: 'text/plain', body: expect.not.stringContaining('CHALLENGE') });
  });
});

describe('social driver: parse', () => {
  const parse = (payload: unknown) => socialDriver.parse(graphInboundRequest(payload, APP_SECRET), connection());
  const pageId = () => graph.state.pageId;
  const from = (message: Record<string, unknown>) => ({ sender: { id: PSID }, recipient: { id: pageId() }, timestamp: 1458692752478, message });

  it('reads a text message from the page-scoped sender', () => {
    expect(parse(messengerTextWebhook({ pageId: pageId(), psid: PSID, mid: 'm_TEXT', text: 'hello, world!' }))).toEqual([
      { kind: 'message', externalId: 'm_TEXT', from: PSID, to: pageId(), text: 'hello, world!' },
    ]);
  });

  it('reads attachments as media with their URL; files as documents; a sticker sent twice during Meta’s transition once', () => {
    const events = parse(
      messengerWebhook({
        pageId: pageId(),
        messaging: [
          from({ mid: 'm_IMG', attachments: [{ type: 'image', payload: { url: 'https://cdn.example/img.jpg' } }] }),
          from({ mid: 'm_AUD', attachments: [{ type: 'audio', payload: { url: 'https://cdn.example/voice.mp4' } }] }),
          from({ mid: 'm_VID', attachments: [{ type: 'video', payload: { url: 'https://cdn.example/clip.mp4' } }] }),
          from({ mid: 'm_FILE', text: 'my invoice', attachments: [{ type: 'file', payload: { url: 'https://cdn.example/invoice.pdf' } }] }),
          from({
            mid: 'm_STK',
            attachments: [
              { type: 'image', payload: { url: 'https://cdn.example/sticker.png', sticker_id: 369239263222822 } },
              { type: 'sticker', payload: { url: 'https://cdn.example/sticker.png', sticker_id: 369239263222822 } },
            ],
          }),
          from({ mid: 'm_LOC', attachments: [{ type: 'location', payload: { coordinates: { lat: 48.8584, long: 2.2945 } } }] }),
          from({ mid: 'm_FALLBACK', attachments: [{ type: 'fallback', payload: { url: 'https://example.com/shared', title: 'A link' } }] }),
        ],
      }),
    );
    expect(events.map((event) => (event.kind === 'message' ? [event.externalId, event.text, event.media] : null))).toEqual([
      ['m_IMG', null, [{ type: 'image', url: 'https://cdn.example/img.jpg' }]],
      ['m_AUD', null, [{ type: 'audio', url: 'https://cdn.example/voice.mp4' }]],
      ['m_VID', null, [{ type: 'video', url: 'https://cdn.example/clip.mp4' }]],
      ['m_FILE', 'my invoice', [{ type: 'document', url: 'https://cdn.example/invoice.pdf' }]],
      ['m_STK', null, [{ type: 'sticker', url: 'https://cdn.example/sticker.png', id: '369239263222822' }]],
      ['m_LOC', null, [{ type: 'location', url: 'geo:48.8584,2.2945' }]],
      ['m_FALLBACK', null, [{ type: 'other', url: 'https://example.com/shared' }]],
    ]);
  });

  it('reads delivery mids as delivered receipts, watermarks as receipts of the sender’s messages up to then, and an Instagram seen mid as read', () => {
    const event = (extra: Record<string, unknown>) => ({ sender: { id: PSID }, recipient: { id: pageId() }, timestamp: 1458668856463, ...extra });
    const messenger = parse(
      messengerWebhook({
        pageId: pageId(),
        messaging: [
          event({ delivery: { mids: ['m_OURS1', 'm_OURS2'], watermark: 1458668856253 } }),
          event({ delivery: { watermark: 1458668856300 } }),
          event({ read: { watermark: 1458668856253 } }),
        ],
      }),
    );
    expect(messenger).toEqual([
      { kind: 'receipt', externalId: 'm_OURS1', status: 'delivered' },
      { kind: 'receipt', externalId: 'm_OURS2', status: 'delivered' },
      { kind: 'receipt', to: PSID, watermark: new Date(1458668856253), status: 'delivered' },
      { kind: 'receipt', to: PSID, watermark: new Date(1458668856300), status: 'delivered' },
      { kind: 'receipt', to: PSID, watermark: new Date(1458668856253), status: 'read' },
    ]);
    // A watermark without its sender, or that is no time, names nobody's messages.
    const unnamed = parse(
      messengerWebhook({
        pageId: pageId(),
        messaging: [{ recipient: { id: pageId() }, read: { watermark: 1458668856253 } }, event({ read: { watermark: 'soon' } }), event({ delivery: { watermark: 0 } })],
      }),
    );
    expect(unnamed).toEqual([]);
    const instagram = parse(messengerWebhook({ object: 'instagram', pageId: '17841400000000000', messaging: [event({ read: { mid: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlE' } })] }));
    expect(instagram).toEqual([{ kind: 'receipt', externalId: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlE', status: 'read' }]);
  });

  it('leaves out echoes of our own messages, postbacks, and other pages’ events', () => {
    const echo = { sender: { id: pageId() }, recipient: { id: PSID }, timestamp: 1, message: { is_echo: true, app_id: 1517776481860111, mid: 'm_ECHO', text: 'our reply' } };
    const postback = { sender: { id: PSID }, recipient: { id: pageId() }, timestamp: 2, postback: { title: 'Get Started', payload: 'START' } };
    expect(parse(messengerWebhook({ pageId: pageId(), messaging: [echo, postback] }))).toEqual([]);
    expect(parse(messengerTextWebhook({ pageId: '9999', psid: PSID, mid: 'm_OTHER_PAGE', text: 'hi' }))).toEqual([]);
  });

  it('reads Instagram messages whatever the account id of the entry', () => {
    const payload = messengerWebhook({ object: 'instagram', pageId: '17841400000000000', messaging: [{ sender: { id: '1122334455' }, recipient: { id: '17841400000000000' }, timestamp: 3, message: { mid: 'aWdfMID', text: 'ig hello' } }] });
    expect(parse(payload)).toEqual([{ kind: 'message', externalId: 'aWdfMID', from: '1122334455', to: '17841400000000000', text: 'ig hello' }]);
  });

  it('throws for a body that is not a webhook', () => {
    expect(() => parse({ object: 'page' })).toThrow(/entry/);
  });
});

describe('social driver: send', () => {
  it('posts a RESPONSE text with the page token and answers the message_id', async () => {
    const result = await socialDriver.send(context(), { to: PSID, text: 'We open at 10 on Sundays.', idempotencyKey: 'delivery-1' });
    expect(graph.state.sent).toHaveLength(1);
    const [sent] = graph.state.sent;
    expect(result).toEqual({ externalId: sent.id });
    expect(sent.request).toEqual({ recipient: { id: PSID }, messaging_type: 'RESPONSE', message: { text: 'We open at 10 on Sundays.' } });
    const [request] = graph.requests;
    expect(request.path).toBe(`/v21.0/${graph.state.pageId}/messages`);
    expect(request.headers.authorization).toBe(`Bearer ${graph.state.accessToken}`);
    // The token travels in a header, never in the URL (which logs and proxies keep).
    expect(request.query.has('access_token')).toBe(false);
  });

  it('fails without retry on a 4xx, with Graph’s message', async () => {
    graph.failNext({ status: 400, code: 10, error_subcode: 2018278, message: '(#10) This message is sent outside of allowed window.' });
    const error = await sendFailure(socialDriver.send(context(), { to: PSID, text: 'hi', idempotencyKey: 'k' }));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('outside of allowed window');
    expect(error.message).toContain('10/2018278');
  });

  it('fails without retry for a revoked token', async () => {
    const error = await sendFailure(socialDriver.send(context({ access_token: 'EAAP-revoked' }), { to: PSID, text: 'hi', idempotencyKey: 'k' }));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('Invalid OAuth access token');
  });

  it('marks a 429, a 5xx and Graph’s throttling codes retryable', async () => {
    graph.failNext(
      { status: 429, code: 613, message: 'Calls to this api have exceeded the rate limit.', headers: { 'retry-after': '30' } },
      { status: 500, code: 1, message: 'An unknown error occurred' },
      { status: 400, code: 32, message: 'Page request limit reached' },
    );
    const results = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const error = await sendFailure(socialDriver.send(context(), { to: PSID, text: 'hi', idempotencyKey: 'k' }));
      results.push([error.retryable, error.retryAfterSeconds]);
    }
    expect(results).toEqual([
      [true, 30],
      [true, null],
      [true, null],
    ]);
    expect(graph.state.sent).toHaveLength(0);
    expect(graph.requests).toHaveLength(3);
  });

  it('refuses through the fake what the Send API refuses: text over 2000 characters', async () => {
    const error = await sendFailure(socialDriver.send(context(), { to: PSID, text: 'y'.repeat(2001), idempotencyKey: 'k' }));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('2000');
  });
});

describe('social driver: typing and credentials', () => {
  it('sends the typing_on sender action to the customer', async () => {
    await socialDriver.typing!(context(), PSID);
    expect(graph.state.actions).toEqual([{ recipientId: PSID, action: 'typing_on' }]);
    expect(graph.requests[0].json()).toEqual({ recipient: { id: PSID }, sender_action: 'typing_on' });
  });

  it('a failed typing indicator throws like a send', async () => {
    graph.failNext({ status: 503, code: 2, message: 'Service temporarily unavailable' });
    const error = await sendFailure(socialDriver.typing!(context(), PSID));
    expect(error.retryable).toBe(true);
  });

  it('checks the page token by reading the page', async () => {
    await expect(socialDriver.test!(credentials(), { egress, apiBaseUrl: graph.apiBaseUrl })).resolves.toEqual({ valid: true });
    await expect(socialDriver.test!({ ...credentials(), access_token: 'nope' }, { egress, apiBaseUrl: graph.apiBaseUrl })).resolves.toEqual({
      valid: false,
      message: expect.stringContaining('Invalid OAuth access token'),
    });
  });
});
