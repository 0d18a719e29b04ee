import { EgressNetworkError, EgressRefusedError, EgressTimeoutError } from '../../../../core';
import { recordingEgress } from '../../../../plugins/flows/app-testing/recording-egress';

describe('recordingEgress', () => {
  it('records each request as the egress client would send it: query added, headers lower-case, JSON body typed, idempotency key set', async () => {
    const egress = recordingEgress().reply({ status: 201, body: { id: 7 } });
    const answer = await egress.request('https://api.acme.test/leads?source=web', {
      method: 'post',
      headers: { 'X-Api-Key': 'k1', Skipped: undefined },
      query: { page: 2, tag: ['a', 'b'], none: null },
      body: { email: 'ada@example.com' },
      idempotencyKey: 'exec-1:step-2',
    });
    expect(answer.status).toBe(201);
    expect(answer.json()).toEqual({ id: 7 });
    expect(answer.headers['content-type']).toBe('application/json');
    const [sent] = egress.requests;
    expect(sent).toMatchObject({
      method: 'POST',
      url: 'https://api.acme.test/leads?source=web&page=2&tag=a&tag=b',
      headers: { 'x-api-key': 'k1', 'idempotency-key': 'exec-1:step-2', 'content-type': 'application/json' },
    });
    expect(sent.headers).not.toHaveProperty('skipped');
    expect(sent.json()).toEqual({ email: 'ada@example.com' });

    await egress.reply({ body: 'ok' }).request('https://api.acme.test/note', { method: 'PUT', body: 'plain text' });
    expect(egress.requests[1].text()).toBe('plain text');
    expect(egress.requests[1].headers).not.toHaveProperty('content-type');
  });

  it('answers by the first matching route, else by the queued replies in order; a function answers from the request', async () => {
    const egress = recordingEgress()
      .route('GET', 'https://api.acme.test/leads/', (request) => ({ body: { id: request.url.split('/').pop() } }))
      .route('*', /\/health$/, { status: 204 })
      .reply({ status: 500, body: 'first' }, { status: 202, body: 'second' });
    expect((await egress.request('https://api.acme.test/leads/42')).json()).toEqual({ id: '42' });
    expect((await egress.request('https://api.acme.test/health', { method: 'HEAD' })).status).toBe(204);
    expect((await egress.request('https://api.acme.test/other')).text()).toBe('first');
    expect((await egress.request('https://api.acme.test/leads/1', { method: 'DELETE' })).text()).toBe('second');
    expect(egress.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET https://api.acme.test/leads/42',
      'HEAD https://api.acme.test/health',
      'GET https://api.acme.test/other',
      'DELETE https://api.acme.test/leads/1',
    ]);
  });

  it('throws a scripted error, fails a request nothing answers as a network error naming it, and refuses what the client refuses', async () => {
    const timeout = new EgressTimeoutError('total', 1000);
    const egress = recordingEgress().reply({ error: timeout });
    await expect(egress.request('https://api.acme.test/slow')).rejects.toBe(timeout);
    await expect(egress.request('https://api.acme.test/unscripted', { method: 'PATCH' })).rejects.toThrow(
      new EgressNetworkError('recordingEgress: nothing scripted for PATCH https://api.acme.test/unscripted (queue a reply() or add a route())', undefined),
    );
    await expect(egress.request('ftp://files.acme.test/x')).rejects.toBeInstanceOf(EgressRefusedError);
    await expect(egress.request('not a url')).rejects.toBeInstanceOf(EgressRefusedError);
    expect(egress.requests).toHaveLength(2);
  });

  it('hands a 2xx body to onChunk and returns it empty, as the client does for a streamed answer', async () => {
    const chunks: string[] = [];
    const egress = recordingEgress().reply({ body: 'data: one\n\n' }, { status: 404, body: 'missing' });
    const streamed = await egress.request('https://api.acme.test/events', { onChunk: (chunk) => chunks.push(chunk.toString()) });
    expect(chunks).toEqual(['data: one\n\n']);
    expect(streamed.body).toHaveLength(0);
    const failed = await egress.request('https://api.acme.test/events', { onChunk: (chunk) => chunks.push(chunk.toString()) });
    expect(failed.text()).toBe('missing');
    expect(chunks).toHaveLength(1);
  });
});
