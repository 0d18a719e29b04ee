/**
 * The scripted side of bench/channels.ts, run as a child process of its own
 * (`node -r ./bin/register-ts.js bench/lib/channels-scripted.ts`, forked with IPC):
 *
 * - the model (core/testing/fake-llm-server.ts), answering each turn at once with a one-word
 *   text that names the turn (`Ref:<turn id>`), so the reply sent to the provider says
 *   which turn it ends;
 * - a Twilio-like provider: `POST /2010-04-01/Accounts/{sid}/Messages.json` (form fields,
 *   HTTP Basic with the account SID and auth token) answered with a Message resource and
 *   its `sid`, and `GET /2010-04-01/Accounts/{sid}.json` (the credential check a new
 *   connection makes).
 *
 * Per turn it keeps the model's server-side spans (received -> response written) and when
 * each reply reached the provider, on the system clock (runtime-clock.ts), and tells the
 * parent of each arrival at once (`arrival`), so a customer can send its next message.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeLlmServer } from '../../core/testing/fake-llm-server';
import { runChild } from './children';
import { clockCorrection } from './runtime-clock';
import { replyText, turnIdOf } from './turn-ids';

/** The turn a reply ends (its `Ref:<id>`, turn-ids.ts). */
const REPLY_REF = /Ref:([A-Za-z0-9_-]+)/;
// The model's reply is one word (replyText) on purpose: an agent's pacing cannot be zero (typing
// speed is at most 1,000 words per minute, 60 ms a word), so the shortest reply waits the least;
// the bench subtracts that configured wait from the platform's time and reports it apart.

/** The provider's account the bench's connection uses. */
export interface ProviderAccount {
  sid: string;
  authToken: string;
}

export interface TurnRecord {
  /** [start, end] of each model request served for the turn, system-clock ms. */
  spans: Array<[number, number]>;
  /** When each reply naming the turn reached the provider, system-clock ms. */
  arrivals: number[];
}

export type ScriptedMessage =
  | { type: 'ready'; llmUrl: string; providerUrl: string }
  | { type: 'arrival'; turnId: string; at: number }
  | { type: 'turns'; turns: Record<string, TurnRecord>; modelRequests: number; unnamedModelRequests: number; providerMessages: number; providerRefused: number }
  | { type: 'error'; error: string };

async function runScripted(account: ProviderAccount): Promise<void> {
  const correction = clockCorrection();
  const now = () => performance.timeOrigin + performance.now() + correction;
  let turns = new Map<string, TurnRecord>();
  const counts = { modelRequests: 0, unnamedModelRequests: 0, providerMessages: 0, providerRefused: 0 };
  const recordOf = (turnId: string) => {
    let record = turns.get(turnId);
    if (!record) turns.set(turnId, (record = { spans: [], arrivals: [] }));
    return record;
  };

  const model = await startFakeLlmServer({
    fallback: (request) => {
      counts.modelRequests++;
      const turnId = turnIdOf(request);
      if (!turnId) {
        counts.unnamedModelRequests++;
        // A structured request (the guard's check; the bench agent has no rules) gets "no rule"; any other a short text.
        if (request.body?.response_format?.json_schema?.name === 'guard_check') return { json: { rule_uuid: null } };
        return { content: 'Noted.' };
      }
      // The fake server answers synchronously once this returns (no delay): a microtask queued now runs after its res.end().
      queueMicrotask(() => recordOf(turnId).spans.push([request.receivedAt + correction, now()]));
      if (request.body?.response_format?.json_schema?.name === 'guard_check') return { json: { rule_uuid: null } };
      return { content: replyText(turnId) };
    },
  });
  // Nothing is kept per request: a long run must not grow the server's memory.
  const trim = setInterval(() => model.requests.splice(0), 1000);

  const basic = `Basic ${Buffer.from(`${account.sid}:${account.authToken}`).toString('base64')}`;
  const messagesPath = `/2010-04-01/Accounts/${account.sid}/Messages.json`;
  const accountPath = `/2010-04-01/Accounts/${account.sid}.json`;
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    const payload = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  };
  const twilioError = (res: http.ServerResponse, status: number, code: number, message: string) =>
    json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

  const provider = http.createServer((req, res) => {
    // The moment the send call reached the provider: before its body is read.
    const arrivedAt = now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.headers.authorization !== basic) {
        counts.providerRefused++;
        return twilioError(res, 401, 20003, 'Authenticate');
      }
      if (req.method === 'GET' && req.url === accountPath) {
        return json(res, 200, { sid: account.sid, friendly_name: 'Bench account', status: 'active', type: 'Full', owner_account_sid: account.sid, uri: accountPath });
      }
      if (req.method !== 'POST' || req.url !== messagesPath) {
        counts.providerRefused++;
        return twilioError(res, 404, 20404, `The requested resource ${req.url} was not found`);
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const to = form.get('To');
      const from = form.get('From');
      const body = form.get('Body') ?? '';
      if (!to || (!from && !form.get('MessagingServiceSid')) || body === '') {
        counts.providerRefused++;
        return twilioError(res, 400, 21602, 'To, From (or MessagingServiceSid) and Body are required.');
      }
      counts.providerMessages++;
      const sid = `SM${randomBytes(16).toString('hex')}`;
      const created = new Date().toUTCString().replace('GMT', '+0000');
      json(res, 201, {
        account_sid: account.sid,
        api_version: '2010-04-01',
        body,
        date_created: created,
        date_sent: null,
        date_updated: created,
        direction: 'outbound-api',
        error_code: null,
        error_message: null,
        from,
        messaging_service_sid: form.get('MessagingServiceSid'),
        num_media: '0',
        num_segments: String(Math.max(1, Math.ceil(body.length / 160))),
        price: null,
        price_unit: 'USD',
        sid,
        status: 'queued',
        to,
        uri: `/2010-04-01/Accounts/${account.sid}/Messages/${sid}.json`,
      });
      const turnId = REPLY_REF.exec(body)?.[1];
      if (!turnId) return;
      recordOf(turnId).arrivals.push(arrivedAt);
      process.send!({ type: 'arrival', turnId, at: arrivedAt } satisfies ScriptedMessage);
    });
  });
  provider.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));

  process.on('message', (message: unknown) => {
    if (message === 'turns') {
      const out = Object.fromEntries(turns);
      turns = new Map();
      process.send!({ type: 'turns', turns: out, ...counts } satisfies ScriptedMessage);
      counts.modelRequests = counts.unnamedModelRequests = counts.providerMessages = counts.providerRefused = 0;
    } else if (message === 'stop') {
      clearInterval(trim);
      provider.closeAllConnections();
      provider.close();
      void model.close().then(() => process.exit(0));
    }
  });
  process.send!({ type: 'ready', llmUrl: model.url, providerUrl: `http://127.0.0.1:${(provider.address() as AddressInfo).port}` } satisfies ScriptedMessage);
}

if (require.main === module) runChild(() => runScripted(JSON.parse(process.env.BENCH_PROVIDER_ACCOUNT ?? '{}') as ProviderAccount));
