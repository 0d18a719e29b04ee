import { createHmac, randomBytes } from 'node:crypto';
import { startVendorServer, type VendorReply, type VendorRequest, type VendorServer } from '../../../../../plugins/flows/testing-kit';

/**
 * Twilio's REST API (2010-04-01) as the Twilio SMS driver uses it, played on loopback from
 * its documented shapes: `POST /Accounts/{sid}/Messages.json` (form-encoded, HTTP Basic
 * with the account SID and auth token) creating a Message resource, and
 * `GET /Accounts/{sid}.json`. Errors answer Twilio's `{code, message, more_info, status}`.
 * Every message created is recorded; `statusCallback` then builds the signed status
 * callback Twilio would post for it, and `signedTwilioHook` an inbound message webhook,
 * so tests (and end-to-end tests) can post real signed hooks.
 *
 * Not played: MMS sending (MediaUrl), scheduling, price, segments beyond a count.
 */

export interface TwilioAccount {
  sid: string;
  authToken: string;
  /** The account's numbers a `From` may name; empty: any E.164 number is accepted. */
  numbers: string[];
}

export interface TwilioSentMessage {
  sid: string;
  accountSid: string;
  to: string;
  from: string | null;
  messagingServiceSid: string | null;
  body: string;
  statusCallback: string | null;
}

export interface TwilioState {
  accounts: TwilioAccount[];
  messages: TwilioSentMessage[];
  /** Answered, in order, instead of handling the next requests; one with `on` waits for a request whose `METHOD /path` holds it. */
  failures: Array<{ on?: string; reply: VendorReply }>;
}

/** A webhook as Twilio would post it: the URL it calls, its headers and its form-encoded body. */
export interface SignedTwilioHook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface TwilioServer extends VendorServer<TwilioState> {
  /** The signed status callback Twilio posts to a sent message's `StatusCallback`. */
  statusCallback(messageSid: string, status: 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | 'undelivered', options?: { errorCode?: string }): SignedTwilioHook;
}

export const newSid = (prefix: string) => prefix + randomBytes(16).toString('hex');

/** The documented `X-Twilio-Signature`: base64 HMAC-SHA1 (auth token) of the URL, then each form field's name and value, by name. */
export function signTwilioRequest(authToken: string, url: string, params: Record<string, string>): string {
  const names = Object.keys(params).sort();
  const data = url + names.map((name) => name + params[name]).join('');
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

export function signedTwilioHook(url: string, params: Record<string, string>, authToken: string): SignedTwilioHook {
  return {
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signTwilioRequest(authToken, url, params) },
    body: new URLSearchParams(params).toString(),
  };
}

/** The fields of Twilio's incoming message webhook (SMS, or MMS with `media`). */
export function inboundSmsParams(message: {
  accountSid: string;
  from: string;
  to: string;
  body: string;
  messageSid?: string;
  media?: Array<{ url: string; contentType: string }>;
}): Record<string, string> {
  const sid = message.messageSid ?? newSid(message.media?.length ? 'MM' : 'SM');
  const params: Record<string, string> = {
    ToCountry: 'US',
    ToState: 'CA',
    SmsMessageSid: sid,
    NumMedia: String(message.media?.length ?? 0),
    ToCity: '',
    FromZip: '',
    SmsSid: sid,
    FromState: 'CA',
    SmsStatus: 'received',
    FromCity: '',
    Body: message.body,
    FromCountry: 'US',
    To: message.to,
    ToZip: '',
    NumSegments: '1',
    MessageSid: sid,
    AccountSid: message.accountSid,
    From: message.from,
    ApiVersion: '2010-04-01',
  };
  for (const [index, media] of (message.media ?? []).entries()) {
    params[`MediaUrl${index}`] = media.url;
    params[`MediaContentType${index}`] = media.contentType;
  }
  return params;
}

/** Twilio's error body, e.g. `twilioError(429, 20429, 'Too Many Requests')`. */
export function twilioError(status: number, code: number, message: string, headers: Record<string, string> = {}): VendorReply {
  return { status, headers, body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status } };
}

const E164 = /^\+[1-9]\d{1,14}$/;

/** The account the Basic credentials name, or the 401 Twilio answers. */
function authenticate(request: VendorRequest, state: TwilioState): TwilioAccount | VendorReply {
  const match = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
  const [user, password] = match ? Buffer.from(match[1], 'base64').toString('utf8').split(/:(.*)/s) : [];
  const account = state.accounts.find((candidate) => candidate.sid === user && candidate.authToken === password);
  return account ?? twilioError(401, 20003, 'Authenticate');
}

const isReply = (value: TwilioAccount | VendorReply): value is VendorReply => !('authToken' in value);

function scriptedFailure(request: VendorRequest, state: TwilioState): VendorReply | null {
  const index = state.failures.findIndex((failure) => !failure.on || `${request.method} ${request.path}`.includes(failure.on));
  return index < 0 ? null : state.failures.splice(index, 1)[0].reply;
}

function createMessage(request: VendorRequest, state: TwilioState): VendorReply {
  const failure = scriptedFailure(request, state);
  if (failure) return failure;
  const account = authenticate(request, state);
  if (isReply(account)) return account;
  if (account.sid !== request.params.accountSid) return twilioError(404, 20404, `The requested resource /2010-04-01/Accounts/${request.params.accountSid}/Messages.json was not found`);
  if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return twilioError(400, 21602, 'Message body is required.');
  const form = new URLSearchParams(request.body);
  const to = form.get('To');
  const from = form.get('From');
  const messagingServiceSid = form.get('MessagingServiceSid');
  const body = form.get('Body') ?? '';
  if (!to) return twilioError(400, 21604, "A 'To' phone number is required.");
  if (!E164.test(to)) return twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
  if (!from && !messagingServiceSid) return twilioError(400, 21603, "A 'From' phone number is required.");
  if (from && account.numbers.length > 0 && !account.numbers.includes(from)) {
    return twilioError(400, 21606, `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`);
  }
  if (body === '') return twilioError(400, 21602, 'Message body is required.');
  if (body.length > 1600) return twilioError(400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
  const message: TwilioSentMessage = { sid: newSid('SM'), accountSid: account.sid, to, from, messagingServiceSid, body, statusCallback: form.get('StatusCallback') };
  state.messages.push(message);
  const now = new Date().toUTCString().replace('GMT', '+0000');
  return {
    status: 201,
    body: {
      account_sid: account.sid,
      api_version: '2010-04-01',
      body,
      date_created: now,
      date_sent: null,
      date_updated: now,
      direction: 'outbound-api',
      error_code: null,
      error_message: null,
      from,
      messaging_service_sid: messagingServiceSid,
      num_media: '0',
      num_segments: String(Math.max(1, Math.ceil(body.length / 160))),
      price: null,
      price_unit: 'USD',
      sid: message.sid,
      status: messagingServiceSid ? 'accepted' : 'queued',
      subresource_uris: { media: `/2010-04-01/Accounts/${account.sid}/Messages/${message.sid}/Media.json` },
      to,
      uri: `/2010-04-01/Accounts/${account.sid}/Messages/${message.sid}.json`,
    },
  };
}

function fetchAccount(request: VendorRequest, state: TwilioState): VendorReply {
  const failure = scriptedFailure(request, state);
  if (failure) return failure;
  const account = authenticate(request, state);
  if (isReply(account)) return account;
  const sid = request.params.account.replace(/\.json$/, '');
  if (sid !== account.sid || !request.params.account.endsWith('.json')) return twilioError(404, 20404, `The requested resource /2010-04-01/Accounts/${request.params.account} was not found`);
  return {
    body: {
      sid: account.sid,
      friendly_name: 'Test account',
      status: 'active',
      type: 'Full',
      owner_account_sid: account.sid,
      date_created: 'Mon, 01 Jan 2024 00:00:00 +0000',
      date_updated: 'Mon, 01 Jan 2024 00:00:00 +0000',
      uri: `/2010-04-01/Accounts/${account.sid}.json`,
    },
  };
}

export async function startTwilioServer(options: { accounts?: Array<Partial<TwilioAccount>> } = {}): Promise<TwilioServer> {
  const state: TwilioState = {
    accounts: (options.accounts ?? [{}]).map((account) => ({ sid: account.sid ?? newSid('AC'), authToken: account.authToken ?? randomBytes(16).toString('hex'), numbers: account.numbers ?? [] })),
    messages: [],
    failures: [],
  };
  const server = await startVendorServer<TwilioState>(
    {
      'POST /2010-04-01/Accounts/:accountSid/Messages.json': createMessage,
      'GET /2010-04-01/Accounts/:account': fetchAccount,
    },
    { state },
  );
  return Object.assign(server, {
    statusCallback(messageSid: string, status: string, callbackOptions: { errorCode?: string } = {}): SignedTwilioHook {
      const message = state.messages.find((candidate) => candidate.sid === messageSid);
      if (!message) throw new Error(`no message ${messageSid} was sent`);
      if (!message.statusCallback) throw new Error(`message ${messageSid} was sent without a StatusCallback`);
      const account = state.accounts.find((candidate) => candidate.sid === message.accountSid)!;
      const params: Record<string, string> = {
        SmsSid: message.sid,
        SmsStatus: status,
        MessageStatus: status,
        To: message.to,
        MessageSid: message.sid,
        AccountSid: message.accountSid,
        From: message.from ?? '+15550000000',
        ApiVersion: '2010-04-01',
        ...(message.messagingServiceSid ? { MessagingServiceSid: message.messagingServiceSid } : {}),
        ...(callbackOptions.errorCode ? { ErrorCode: callbackOptions.errorCode } : {}),
      };
      return signedTwilioHook(message.statusCallback, params, account.authToken);
    },
  }) as TwilioServer;
}
