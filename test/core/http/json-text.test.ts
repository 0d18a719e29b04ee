import { definePlugin, defineRoute, coreServices, JsonText, Reply, Type } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';

/** A handler that writes its own JSON: the kernel sends the text or bytes as they are. */
describe('JsonText', () => {
  let kit: TestKernel;
  const sent: Buffer[] = [];
  // Not what JSON.stringify would write (spacing, member order), so a re-serialization would show.
  const TEXT = '{ "b": 1,  "a": "é \\u00e9" }';

  beforeAll(async () => {
    const writer = definePlugin({
      id: 'json-writer',
      deps: { http: coreServices.http },
      init({ http }) {
        const route = (path: string, handler: () => unknown) =>
          http.route(defineRoute({ method: 'GET', path, summary: 'Pre-serialized JSON', auth: 'public', response: Type.Object({}, { additionalProperties: true }), handler }));
        route('/api/v1/json-text/string', () => new JsonText(TEXT));
        route('/api/v1/json-text/bytes', () => new JsonText(Buffer.from(TEXT)));
        route('/api/v1/json-text/reply', () => new Reply(201, new JsonText(TEXT), { 'X-Written': 'by hand' }));
        route('/api/v1/json-text/lent', () => {
          const bytes = Buffer.from(TEXT);
          return new JsonText(bytes, () => sent.push(bytes));
        });
      },
    });
    kit = await startTestKernel({ plugins: [writer] });
  });
  afterAll(() => kit?.stop());

  it.each(['string', 'bytes'])('sends a %s as it is, with its UTF-8 length', async (kind) => {
    const res = await kit.api.get(`/api/v1/json-text/${kind}`).expect(200);
    expect(res.text).toBe(TEXT);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(TEXT)));
    expect(res.body).toEqual({ a: 'é é', b: 1 });
  });

  it('calls afterSent once the lent bytes have been sent', async () => {
    const res = await kit.api.get('/api/v1/json-text/lent').expect(200);
    expect(res.text).toBe(TEXT);
    expect(sent.map((bytes) => bytes.toString())).toEqual([TEXT]);
  });

  it('is a Reply body too, with its status and headers', async () => {
    const res = await kit.api.get('/api/v1/json-text/reply').expect(201);
    expect(res.text).toBe(TEXT);
    expect(res.headers['x-written']).toBe('by hand');
  });
});
