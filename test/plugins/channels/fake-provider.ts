import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Type, definePlugin } from '../../../core';
import { ChannelSendError, channelDrivers, defineChannelDriver, type ChannelDriver } from '../../../plugins/channels';

/**
 * A tiny messaging provider of our own, for the channels plugin's tests: its webhooks
 * carry `X-Fake-Signature: <hex HMAC-SHA256 of the body with the signing secret>`, its
 * bodies are `{messages: [{id, from, text, media?}], receipts: [{id, status, reason?}]}` as JSON, or one
 * message as form fields `id`, `from`, `text`,
 * and its API (the vendor server below) takes `POST /messages` and `POST /typing` with
 * `Authorization: Bearer <api_key>`, and `GET /me` to check a key.
 */
export const FAKE_PROVIDER = 'fakechat';

export const sign = (secret: string, body: string | Buffer): string => crypto.createHmac('sha256', secret).update(body).digest('hex');

export interface VendorRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface FakeVendor {
  url: string;
  requests: VendorRequest[];
  /** The next answers to `POST /messages`, in order; then 201 with the id `fk-<idempotency_key>`. */
  sendAnswers: Array<{ status: number; body: unknown; headers?: Record<string, string> }>;
  validKey: string;
  close(): Promise<void>;
}

export async function startFakeVendor(validKey: string): Promise<FakeVendor> {
  const vendor: FakeVendor = { url: '', requests: [], sendAnswers: [], validKey, close: () => new Promise((resolve) => server.close(() => resolve())) };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : null;
      vendor.requests.push({ method: req.method!, path: req.url!, headers: req.headers, body, at: Date.now() });
      const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(payload));
      };
      if (req.headers.authorization !== `Bearer ${vendor.validKey}`) return answer(401, { error: 'bad key' });
      if (req.method === 'GET' && req.url === '/me') return answer(200, { ok: true });
      if (req.method === 'POST' && req.url === '/typing') return answer(200, { ok: true });
      if (req.method === 'POST' && req.url === '/messages') {
        const scripted = vendor.sendAnswers.shift();
        if (scripted) return answer(scripted.status, scripted.body, scripted.headers);
        // The provider's id, derived from our idempotency key so a test can name it.
        return answer(201, { id: `fk-${body.idempotency_key}` });
      }
      answer(404, { error: 'no such route' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  vendor.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return vendor;
}

const FakeCredentials = Type.Object({ api_key: Type.String({ minLength: 1 }), signing_secret: Type.String({ minLength: 8 }) }, { additionalProperties: false });

export function fakeDriver(vendorUrl: string): ChannelDriver<typeof FakeCredentials> {
  return defineChannelDriver({
    provider: FAKE_PROVIDER,
    name: 'Fake chat',
    channelTypes: ['sms'],
    credentials: FakeCredentials,
    defaultApiBaseUrl: vendorUrl,
    verify(request, connection) {
      const given = Buffer.from(request.headers['x-fake-signature'] ?? '', 'utf8');
      const expected = Buffer.from(sign(connection.credentials.signing_secret, request.rawBody), 'utf8');
      return given.length === expected.length && crypto.timingSafeEqual(given, expected);
    },
    challenge(request, connection) {
      return request.query['verify'] === connection.credentials.signing_secret ? { status: 200, contentType: 'text/plain', body: request.query['challenge'] ?? '' } : null;
    },
    parse(request) {
      const body = request.body as { messages?: any[]; receipts?: any[]; id?: string; from?: string; text?: string };
      if (!body || typeof body !== 'object') throw new Error('not an object');
      // Form fields (as Twilio posts them): one message.
      if (typeof body.id === 'string') return [{ kind: 'message', externalId: body.id, from: String(body.from), text: body.text ?? null }];
      return [
        ...(body.messages ?? []).map((m) => ({ kind: 'message' as const, externalId: String(m.id), from: String(m.from), text: m.text ?? null, media: m.media, profileName: m.name })),
        ...(body.receipts ?? []).map((r) => ({ kind: 'receipt' as const, externalId: String(r.id), status: r.status, reason: r.reason })),
      ];
    },
    acknowledge: { contentType: 'text/plain; charset=utf-8', body: 'OK' },
    async send(context, message) {
      const response = await context.egress.request(`${context.apiBaseUrl}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${context.connection.credentials.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: message.to, text: message.text, idempotency_key: message.idempotencyKey, status_callback: context.hookUrl }),
      });
      const body = (await response.json()) as { id?: string; error?: string };
      if (response.status === 429 || response.status >= 500) {
        const retryAfter = Number(response.headers['retry-after']);
        throw new ChannelSendError(body.error ?? `HTTP ${response.status}`, true, Number.isFinite(retryAfter) ? retryAfter : null);
      }
      if (response.status >= 400) throw new ChannelSendError(body.error ?? `HTTP ${response.status}`, false);
      return { externalId: String(body.id) };
    },
    async typing(context, to) {
      await context.egress.request(`${context.apiBaseUrl}/typing`, {
        method: 'POST',
        headers: { authorization: `Bearer ${context.connection.credentials.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to }),
      });
    },
    async test(credentials, context) {
      const response = await context.egress.request(`${context.apiBaseUrl}/me`, { headers: { authorization: `Bearer ${credentials.api_key}` } });
      return response.status === 200 ? { valid: true } : { valid: false, message: 'The fake provider refused the API key' };
    },
  });
}

/** A throwaway plugin that adds the fake driver, as a partner's plugin would. */
export const fakeDriverPlugin = (vendorUrl: string) =>
  definePlugin({ id: 'fake-channel-driver', dependsOn: ['channels'], contributes: [channelDrivers.add(fakeDriver(vendorUrl))] });
