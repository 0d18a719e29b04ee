import { createHmac } from 'node:crypto';
import { definePlugin, defineRoute, coreServices, Reply, Type } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';

/**
 * What providers' webhooks need of the kernel: the JSON body's bytes as they came (a
 * signature is over them, not over the parsed value), and bytes answered as they are
 * (TwiML, a challenge's text) with the content type the handler gives.
 */
describe('raw request bodies and byte replies', () => {
  let kit: TestKernel;
  const SECRET = 'hook-secret';

  beforeAll(async () => {
    const hooks = definePlugin({
      id: 'raw-hooks',
      deps: { http: coreServices.http },
      init({ http }) {
        http.route(
          defineRoute({
            method: 'POST',
            path: '/hooks/raw-probe',
            summary: 'Checks a signature over the raw body',
            auth: 'public',
            body: Type.Unknown(),
            response: Type.Object({}, { additionalProperties: true }),
            handler: ({ req }) => {
              const raw = (req as { rawBody?: Buffer }).rawBody;
              const signature = raw ? createHmac('sha256', SECRET).update(raw).digest('hex') : null;
              return { raw_length: raw?.length ?? null, signed: signature === req.get('x-signature') };
            },
          }),
        );
        http.route(
          defineRoute({
            method: 'GET',
            path: '/hooks/raw-probe',
            summary: 'Answers bytes',
            auth: 'public',
            response: Type.Object({}, { additionalProperties: true }),
            handler: () => new Reply(200, Buffer.from('<Response></Response>'), { 'content-type': 'text/xml' }),
          }),
        );
      },
    });
    kit = await startTestKernel({ plugins: [hooks] });
  });
  afterAll(() => kit?.stop());

  it('keeps the JSON body`s bytes as sent, spacing and member order included', async () => {
    // Parsing and serializing again would change these bytes, and the signature with them.
    const text = '{ "b": 1,   "a": [ "é" ] }';
    const signature = createHmac('sha256', SECRET).update(text).digest('hex');
    const res = await kit.client({}).post('/hooks/raw-probe').set('content-type', 'application/json').set('x-signature', signature).send(text).expect(200);
    expect(res.body).toEqual({ raw_length: Buffer.byteLength(text), signed: true });
    const tampered = await kit.client({}).post('/hooks/raw-probe').set('content-type', 'application/json').set('x-signature', signature).send('{"b":1,"a":["é"]}').expect(200);
    expect(tampered.body.signed).toBe(false);
  });

  it('writes a Buffer reply as it is, with its content type', async () => {
    const res = await kit.client({}).get('/hooks/raw-probe').expect(200);
    expect(res.headers['content-type']).toBe('text/xml');
    expect(res.text).toBe('<Response></Response>');
  });
});
