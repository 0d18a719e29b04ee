import { loopbackEgress, sendFailure } from '../driver-test-kit';
import { Value } from '@sinclair/typebox/value';
import type { Egress } from '../../../../../core/egress';
import { captureLogger } from '../../../../../core/testing';
import type { DriverContext, InboundRequest } from '../../../../../plugins/channels/driver';
import { twilioDriver } from '../../../../../plugins/channels/drivers/twilio';
import type { TwilioCredentials } from '../../../../../plugins/channels/drivers/twilio/credentials';
import { inboundSmsParams, newSid, signTwilioRequest, signedTwilioHook, startTwilioServer, twilioError, type SignedTwilioHook, type TwilioServer } from './twilio-server';

const HOOK_URL = 'https://switchboard.example.com/hooks/channels/6f1c2b7e-1d2a-4c1b-9a57-3f0e9d1c2b7e';
const OUR_NUMBER = '+15005550006';
const CUSTOMER = '+14155550123';

let twilio: TwilioServer;
let egress: Egress;
let credentials: TwilioCredentials;

beforeAll(async () => {
  twilio = await startTwilioServer({ accounts: [{ numbers: [OUR_NUMBER] }] });
  const [account] = twilio.state.accounts;
  credentials = { account_sid: account.sid, auth_token: account.authToken, from_number: OUR_NUMBER };
  // Loopback is refused by default: allow it, as the test kernel does.
  egress = loopbackEgress();
});
afterAll(async () => {
  await egress.close();
  await twilio.close();
});
beforeEach(() => {
  twilio.state.messages.length = 0;
  twilio.state.failures.length = 0;
  twilio.requests.length = 0;
});

const connection = (creds: TwilioCredentials = credentials) => ({ uuid: 'c0ffee00-0000-4000-8000-000000000001', provider: 'twilio', label: 'SMS', credentials: creds });

const context = (creds: TwilioCredentials = credentials): DriverContext<TwilioCredentials> => ({
  connection: connection(creds),
  egress,
  apiBaseUrl: twilio.url,
  hookUrl: HOOK_URL,
  logger: captureLogger().logger,
});

/** The request as the channels plugin hands it to the driver. */
function inbound(hook: SignedTwilioHook, change: { url?: string; body?: string; headers?: Record<string, string | undefined> } = {}): InboundRequest {
  const body = change.body ?? hook.body;
  const url = change.url ?? hook.url;
  return {
    method: 'POST',
    url,
    headers: change.headers ?? hook.headers,
    rawBody: Buffer.from(body, 'utf8'),
    body: Object.fromEntries(new URLSearchParams(body)),
    query: Object.fromEntries(new URL(url).searchParams),
  };
}

const smsHook = (fields: Partial<Parameters<typeof inboundSmsParams>[0]> = {}, url = HOOK_URL) =>
  signedTwilioHook(url, inboundSmsParams({ accountSid: credentials.account_sid, from: CUSTOMER, to: OUR_NUMBER, body: 'Hi, are you open on Sunday?', ...fields }), credentials.auth_token);


describe('verify (X-Twilio-Signature)', () => {
  it('accepts a webhook signed with the auth token over the URL and the sorted form fields', () => {
    expect(twilioDriver.verify(inbound(smsHook()), connection())).toBe(true);
  });

  it('refuses a signature made with another auth token', () => {
    const hook = signedTwilioHook(HOOK_URL, inboundSmsParams({ accountSid: credentials.account_sid, from: CUSTOMER, to: OUR_NUMBER, body: 'Hi' }), 'another-token');
    expect(twilioDriver.verify(inbound(hook), connection())).toBe(false);
  });

  it('refuses a request without the header, or with an empty one', () => {
    const hook = smsHook();
    expect(twilioDriver.verify(inbound(hook, { headers: { 'content-type': 'application/x-www-form-urlencoded' } }), connection())).toBe(false);
    expect(twilioDriver.verify(inbound(hook, { headers: { ...hook.headers, 'x-twilio-signature': '' } }), connection())).toBe(false);
  });

  it('refuses a body changed after signing', () => {
    const hook = smsHook({ body: 'Refund me 10 dollars' });
    const tampered = hook.body.replace('10', '99');
    expect(tampered).not.toBe(hook.body);
    expect(twilioDriver.verify(inbound(hook, { body: tampered }), connection())).toBe(false);
    // A field added after signing is refused too.
    expect(twilioDriver.verify(inbound(hook, { body: `${hook.body}&Extra=1` }), connection())).toBe(false);
  });

  it('refuses a webhook signed for another URL (another channel)', () => {
    const hook = smsHook();
    expect(twilioDriver.verify(inbound(hook, { url: HOOK_URL.replace(/.$/, '0') }), connection())).toBe(false);
  });

  it('accepts the URL with or without the default port, as Twilio may have signed either', () => {
    const withPort = HOOK_URL.replace('example.com', 'example.com:443');
    expect(twilioDriver.verify(inbound(smsHook({}, withPort), { url: HOOK_URL }), connection())).toBe(true);
    expect(twilioDriver.verify(inbound(smsHook({}, HOOK_URL), { url: withPort }), connection())).toBe(true);
    const otherPort = HOOK_URL.replace('example.com', 'example.com:8443');
    expect(twilioDriver.verify(inbound(smsHook({}, otherPort), { url: HOOK_URL }), connection())).toBe(false);
  });

  it('signs the URL with its query as called', () => {
    const url = `${HOOK_URL}?source=sms`;
    expect(twilioDriver.verify(inbound(smsHook({}, url)), connection())).toBe(true);
    expect(twilioDriver.verify(inbound(smsHook({}, url), { url: `${HOOK_URL}?source=mms` }), connection())).toBe(false);
  });

  it('checks a JSON webhook by its bodySHA256 and the URL', async () => {
    const body = JSON.stringify({ MessageSid: newSid('SM'), From: CUSTOMER, Body: 'hello' });
    const { createHash } = await import('node:crypto');
    const url = `${HOOK_URL}?bodySHA256=${createHash('sha256').update(body).digest('hex')}`;
    const request = (rawBody: string): InboundRequest => ({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'x-twilio-signature': signTwilioRequest(credentials.auth_token, url, {}) },
      rawBody: Buffer.from(rawBody),
      body: JSON.parse(rawBody),
      query: Object.fromEntries(new URL(url).searchParams),
    });
    expect(twilioDriver.verify(request(body), connection())).toBe(true);
    expect(twilioDriver.verify(request(body.replace('hello', 'hellO')), connection())).toBe(false);
  });
});

describe('parse', () => {
  it('reads an incoming SMS', () => {
    const hook = smsHook({ body: 'Hi, are you open on Sunday?' });
    const sid = new URLSearchParams(hook.body).get('MessageSid');
    expect(twilioDriver.parse(inbound(hook), connection())).toEqual([{ kind: 'message', externalId: sid, from: CUSTOMER, to: OUR_NUMBER, text: 'Hi, are you open on Sunday?' }]);
  });

  it('reads an MMS that is only media, each item typed by its content type', () => {
    const media = [
      { url: 'https://api.twilio.com/2010-04-01/Accounts/AC1/Messages/MM1/Media/ME1', contentType: 'image/jpeg' },
      { url: 'https://api.twilio.com/2010-04-01/Accounts/AC1/Messages/MM1/Media/ME2', contentType: 'audio/amr' },
      { url: 'https://api.twilio.com/2010-04-01/Accounts/AC1/Messages/MM1/Media/ME3', contentType: 'text/vcard' },
    ];
    const [event] = twilioDriver.parse(inbound(smsHook({ body: '', media })), connection());
    expect(event).toMatchObject({
      kind: 'message',
      text: null,
      media: [
        { type: 'image', url: media[0].url, mimeType: 'image/jpeg' },
        { type: 'audio', url: media[1].url, mimeType: 'audio/amr' },
        { type: 'document', url: media[2].url, mimeType: 'text/vcard' },
      ],
    });
  });

  it('keeps the caption of a picture', () => {
    const [event] = twilioDriver.parse(inbound(smsHook({ body: 'my receipt', media: [{ url: 'https://example.com/m.png', contentType: 'image/png' }] })), connection());
    expect(event).toMatchObject({ text: 'my receipt', media: [{ type: 'image' }] });
  });

  it('reads status callbacks of our messages as receipts; statuses on the way are left out', async () => {
    const { externalId } = await twilioDriver.send(context(), { to: CUSTOMER, text: 'We open at 10.', idempotencyKey: 'k1' });
    const receipt = (status: Parameters<TwilioServer['statusCallback']>[1], errorCode?: string) => {
      const hook = twilio.statusCallback(externalId, status, { errorCode });
      expect(twilioDriver.verify(inbound(hook), connection())).toBe(true);
      return twilioDriver.parse(inbound(hook), connection());
    };
    expect(receipt('queued')).toEqual([]);
    expect(receipt('sent')).toEqual([{ kind: 'receipt', externalId, status: 'sent' }]);
    expect(receipt('delivered')).toEqual([{ kind: 'receipt', externalId, status: 'delivered' }]);
    expect(receipt('read')).toEqual([{ kind: 'receipt', externalId, status: 'read' }]);
    expect(receipt('undelivered', '30003')).toEqual([{ kind: 'receipt', externalId, status: 'failed', reason: 'Twilio error 30003' }]);
    expect(receipt('failed', '30008')).toEqual([{ kind: 'receipt', externalId, status: 'failed', reason: 'Twilio error 30008' }]);
  });

  it('leaves out a webhook that is not about a message, and refuses a body that is not a form', () => {
    const hook = signedTwilioHook(HOOK_URL, { CallSid: newSid('CA'), CallStatus: 'ringing' }, credentials.auth_token);
    expect(twilioDriver.parse(inbound(hook), connection())).toEqual([]);
    expect(() => twilioDriver.parse({ ...inbound(smsHook()), body: 'MessageSid=SM1' }, connection())).toThrow(/not a form/);
  });

  it('acknowledges with empty TwiML', () => {
    expect(twilioDriver.acknowledge).toEqual({ contentType: 'text/xml', body: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>' });
  });
});

describe('send', () => {
  it('creates a Message from the connection number, with the hook as its status callback', async () => {
    const { externalId } = await twilioDriver.send(context(), { to: CUSTOMER, text: 'We open at 10 & close at 6.', idempotencyKey: 'k2' });
    expect(twilio.state.messages).toEqual([
      { sid: externalId, accountSid: credentials.account_sid, to: CUSTOMER, from: OUR_NUMBER, messagingServiceSid: null, body: 'We open at 10 & close at 6.', statusCallback: HOOK_URL },
    ]);
    expect(externalId).toMatch(/^SM[0-9a-f]{32}$/);
  });

  it('sends through the Messaging Service when the connection names one', async () => {
    const service = newSid('MG');
    await twilioDriver.send(context({ ...credentials, messaging_service_sid: service }), { to: CUSTOMER, text: 'Hello', idempotencyKey: 'k3' });
    expect(twilio.state.messages[0]).toMatchObject({ messagingServiceSid: service, from: null });
  });

  it('refuses to send without a sender, before calling Twilio', async () => {
    const error = await sendFailure(twilioDriver.send(context({ account_sid: credentials.account_sid, auth_token: credentials.auth_token }), { to: CUSTOMER, text: 'Hello', idempotencyKey: 'k4' }));
    expect(error).toMatchObject({ retryable: false, message: expect.stringMatching(/from_number/) });
    expect(twilio.requests).toHaveLength(0);
  });

  it("fails for good with Twilio's reason on a 4xx", async () => {
    const invalid = await sendFailure(twilioDriver.send(context(), { to: '12345', text: 'Hello', idempotencyKey: 'k5' }));
    expect(invalid).toMatchObject({ retryable: false, retryAfterSeconds: null, message: "Twilio error 21211: The 'To' number 12345 is not a valid phone number." });
    const unauthorized = await sendFailure(twilioDriver.send(context({ ...credentials, auth_token: 'wrong' }), { to: CUSTOMER, text: 'Hello', idempotencyKey: 'k6' }));
    expect(unauthorized).toMatchObject({ retryable: false, message: 'Twilio error 20003: Authenticate' });
    expect(twilio.state.messages).toHaveLength(0);
  });

  it('is retryable on a 429, honouring Retry-After', async () => {
    twilio.state.failures.push({ reply: twilioError(429, 20429, 'Too Many Requests', { 'retry-after': '7' }) });
    const error = await sendFailure(twilioDriver.send(context(), { to: CUSTOMER, text: 'Hello', idempotencyKey: 'k7' }));
    expect(error).toMatchObject({ retryable: true, retryAfterSeconds: 7, message: 'Twilio error 20429: Too Many Requests' });
  });

  it('is retryable on a 5xx, sent once (no repeat of a POST by the egress client)', async () => {
    twilio.state.failures.push({ reply: twilioError(503, 20503, 'Service Unavailable') });
    const error = await sendFailure(twilioDriver.send(context(), { to: CUSTOMER, text: 'Hello', idempotencyKey: 'k8' }));
    expect(error).toMatchObject({ retryable: true, retryAfterSeconds: null });
    expect(twilio.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
    twilio.state.failures.push({ reply: { status: 500, body: 'oops' } });
    expect(await sendFailure(twilioDriver.send(context(), { to: CUSTOMER, text: 'Hello', idempotencyKey: 'k9' }))).toMatchObject({ retryable: true, message: 'Twilio answered HTTP 500' });
  });

  it('is retryable when Twilio cannot be reached', async () => {
    const closed = await startTwilioServer();
    await closed.close();
    const error = await sendFailure(twilioDriver.send({ ...context(), apiBaseUrl: closed.url }, { to: CUSTOMER, text: 'Hello', idempotencyKey: 'k10' }));
    expect(error.retryable).toBe(true);
  });
});

describe('test (credentials)', () => {
  it('accepts the account SID and auth token Twilio knows', async () => {
    await expect(twilioDriver.test!(credentials, { egress, apiBaseUrl: twilio.url })).resolves.toEqual({ valid: true });
    const [request] = twilio.requests;
    expect(request).toMatchObject({ method: 'GET', path: `/2010-04-01/Accounts/${credentials.account_sid}.json` });
  });

  it('refuses a wrong auth token or another account, with a message', async () => {
    const wrong = await twilioDriver.test!({ ...credentials, auth_token: 'nope' }, { egress, apiBaseUrl: twilio.url });
    expect(wrong).toEqual({ valid: false, message: expect.stringContaining('Twilio refused the account SID and auth token (Twilio error 20003: Authenticate)') });
    const other = await twilioDriver.test!({ ...credentials, account_sid: newSid('AC') }, { egress, apiBaseUrl: twilio.url });
    expect(other.valid).toBe(false);
  });

  it('says when Twilio cannot be reached', async () => {
    const closed = await startTwilioServer();
    await closed.close();
    const result = await twilioDriver.test!(credentials, { egress, apiBaseUrl: closed.url });
    expect(result).toEqual({ valid: false, message: expect.stringMatching(/^Twilio could not be reached/) });
  });
});

describe('credentials schema', () => {
  it('takes an account SID, an auth token and an optional sender in Twilio\'s formats', () => {
    expect(Value.Check(twilioDriver.credentials, credentials)).toBe(true);
    expect(Value.Check(twilioDriver.credentials, { ...credentials, messaging_service_sid: newSid('MG') })).toBe(true);
    expect(Value.Check(twilioDriver.credentials, { ...credentials, account_sid: newSid('MG') })).toBe(false);
    expect(Value.Check(twilioDriver.credentials, { ...credentials, from_number: '5550006' })).toBe(false);
    expect(Value.Check(twilioDriver.credentials, { ...credentials, auth_token: '' })).toBe(false);
    expect(Value.Check(twilioDriver.credentials, { ...credentials, authToken: 'typo' })).toBe(false);
  });
});
