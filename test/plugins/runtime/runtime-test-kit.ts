import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type supertest from 'supertest';
import type { ApiClient, FakeLlmReply, FakeLlmRequest } from '../../../core/testing';

/** The runtime and what it depends on, as `npm start` loads them. */
export const RUNTIME_PLUGINS = ['agents', 'conversations', 'contacts', 'tables', 'memorize', 'runtime'].map((id) => path.resolve(__dirname, '../../../plugins', id));

/** An active agent made through the API; `body` is merged into the create body. */
export async function activeAgent(api: ApiClient, body: Record<string, unknown> = {}): Promise<string> {
  const created = await api
    .post('/api/v1/agents')
    .send({ name: 'Reception', role: 'Receptionist of a dental clinic', language: 'en-US', timezone: 'Europe/Madrid', ...body })
    .expect(201);
  const uuid = created.body.data.agent_uuid as string;
  await api.post(`/api/v1/agents/${uuid}/activate`).expect(200);
  return uuid;
}

/** The system prompt of a chat completion request the fake model got. */
export const systemPromptOf = (request: FakeLlmRequest): string => request.body.messages.find((message: any) => message.role === 'system')?.content ?? '';

/** Whether a request is the guard's structured check rather than the reply. */
export const isGuardCheck = (request: FakeLlmRequest): boolean => request.body?.response_format?.json_schema?.name === 'guard_check';

/**
 * An answer for whichever call comes: the guard check gets `guard`, the reply `reply`.
 * The two run at once, so a script must not depend on which arrives first.
 */
export const byKind =
  (reply: FakeLlmReply, guard: { rule_uuid: string | null } = { rule_uuid: null }) =>
  (request: FakeLlmRequest): FakeLlmReply =>
    isGuardCheck(request) ? { json: guard } : reply;

export interface Receiver {
  url: string;
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: any }>;
  /** The next answers, in order; then 200 `{ok: true}`. */
  answers: Array<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

/** A local HTTP server standing in for an intent's webhook: records what it was sent, answers what it was told. */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    requests: [],
    answers: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      receiver.requests.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      const answer = receiver.answers.shift() ?? { status: 200, body: { ok: true } };
      const payload = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json' });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** Parses a text/event-stream body into its events, in order. */
export function parseEvents(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

/** A chat turn asked for as Server-Sent Events: the answer's status, headers and events, in order. */
export async function streamChat(api: ApiClient, agent: string, body: Record<string, unknown>): Promise<{ res: supertest.Response; events: Array<{ event: string; data: any }> }> {
  const res = await api
    .post(`/api/v1/agents/${agent}/chat`)
    .set('Accept', 'text/event-stream')
    .send(body)
    .buffer(true)
    .parse((response, callback) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => callback(null, text));
    });
  return { res, events: res.status === 200 ? parseEvents(res.body as string) : [] };
}
