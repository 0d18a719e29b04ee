import http from 'node:http';
import { ConflictError, coreServices, DataEnvelope, definePlugin, defineRoute, EventStream, Type, wantsEventStream } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';

/** Reads a whole text/event-stream answer as text. */
const asText = (response: any, callback: (error: Error | null, body: string) => void) => {
  let text = '';
  response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  response.on('end', () => callback(null, text));
};

describe('EventStream', () => {
  let kit: TestKernel;
  let runs = 0;
  /** Each stream's signal, in order. */
  const signals: AbortSignal[] = [];

  beforeAll(async () => {
    const streamer = definePlugin({
      id: 'streamer',
      deps: { http: coreServices.http },
      init({ http }) {
        http.route(
          defineRoute({
            method: 'POST',
            path: '/api/v1/stream-test/:mode',
            summary: 'Streams three events, or fails',
            params: Type.Object({ mode: Type.String() }),
            transactional: false,
            response: DataEnvelope(Type.Object({ count: Type.Integer() })),
            streams: { description: '`tick` events, then `done`' },
            errors: [409],
            handler: ({ params, req }) => {
              if (params.mode === 'refused') throw new ConflictError('Refused before the stream');
              runs++;
              if (!wantsEventStream(req.headers.accept)) return { data: { count: 3 } };
              return new EventStream(async (writer) => {
                signals.push(writer.signal);
                if (params.mode === 'waits') {
                  writer.emit('tick', { i: 1 });
                  // Until the client goes away (or a while): what work that only feeds the client does.
                  await new Promise((resolve) => {
                    writer.signal.addEventListener('abort', resolve);
                    setTimeout(resolve, 5000);
                  });
                  return { data: { count: 1 } };
                }
                for (let i = 1; i <= 3; i++) writer.emit('tick', { i });
                if (params.mode === 'fails') throw new ConflictError('Changed meanwhile');
                const answer = { data: { count: 3 } };
                writer.emit('done', answer);
                return answer;
              });
            },
          }),
        );
      },
    });
    kit = await startTestKernel({ plugins: [streamer] });
  });
  afterAll(() => kit?.stop());

  const post = (mode: string) => kit.api.post(`/api/v1/stream-test/${mode}`).set('Accept', 'text/event-stream').buffer(true).parse(asText);

  it("aborts the stream's signal when the client goes away before the end, and not after a stream that ended", async () => {
    await post('ok').expect(200);
    const finished = signals.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(finished.aborted).toBe(false);

    const { hostname, port } = new URL(kit.url);
    const req = http.request({ hostname, port, method: 'POST', path: '/api/v1/stream-test/waits', headers: { host: `acme.${kit.kernel.config.core.baseDomain}`, authorization: `Bearer ${kit.token}`, accept: 'text/event-stream' } });
    const firstTick = new Promise<void>((resolve) => req.on('response', (res) => res.once('data', () => resolve())));
    req.on('error', () => {});
    req.end();
    await firstTick;
    const waiting = signals.at(-1)!;
    expect(waiting.aborted).toBe(false);
    req.destroy();
    const deadline = Date.now() + 3000;
    while (!waiting.aborted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(waiting.aborted).toBe(true);
  });

  it('writes each event as it comes, then ends', async () => {
    const res = await post('ok').expect(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache, no-transform');
    expect(res.body).toBe(
      'event: tick\ndata: {"i":1}\n\nevent: tick\ndata: {"i":2}\n\nevent: tick\ndata: {"i":3}\n\nevent: done\ndata: {"data":{"count":3}}\n\n',
    );
  });

  it('an error before the stream is a plain status; after the headers it is an error event with the envelope', async () => {
    const refused = await kit.api.post('/api/v1/stream-test/refused').set('Accept', 'text/event-stream').expect(409);
    expect(refused.body.message).toBe('Refused before the stream');
    const failed = await post('fails').expect(200);
    const last = failed.body.trim().split('\n\n').at(-1);
    expect(last).toBe('event: error\ndata: {"success":false,"message":"Changed meanwhile","data":[]}');
  });

  it('under Idempotency-Key a retry replays the final value as JSON and runs nothing again', async () => {
    const before = runs;
    await post('ok').set('Idempotency-Key', 'stream-key-1').expect(200);
    const replay = await kit.api.post('/api/v1/stream-test/ok').set('Idempotency-Key', 'stream-key-1').expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual({ data: { count: 3 } });
    expect(runs).toBe(before + 1);
  });

  it('a stream that failed frees its key: the retry runs', async () => {
    const before = runs;
    await post('fails').set('Idempotency-Key', 'stream-key-2').expect(200);
    await post('fails').set('Idempotency-Key', 'stream-key-2').expect(200);
    expect(runs).toBe(before + 2);
  });

  it('the OpenAPI document lists text/event-stream beside JSON', async () => {
    const doc = (await kit.api.get('/api/v1/openapi.json').expect(200)).body;
    const content = doc.paths['/api/v1/stream-test/{mode}'].post.responses['200'].content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'text/event-stream']);
    expect(content['text/event-stream'].schema.description).toBe('`tick` events, then `done`');
  });

  it.each([
    ['text/event-stream', true],
    ['application/json, text/event-stream;q=0.9', true],
    ['application/json', false],
    ['text/event-streams', false],
    [undefined, false],
  ])('wantsEventStream(%s) is %s', (accept, expected) => {
    expect(wantsEventStream(accept)).toBe(expected);
  });
});
