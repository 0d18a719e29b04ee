import { existsSync, readFileSync } from 'node:fs';
import { coreServices, definePlugin, defineRoute, Type } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';

let seen: { body: unknown; name: string; type: string; size: number; content: string; path: string }[] = [];
const probe = definePlugin({
  id: 'upload-probe',
  deps: { http: coreServices.http },
  init({ http }) {
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/upload-probe',
        summary: 'Receives one file',
        upload: { field: 'file', description: 'Any file' },
        body: Type.Object({ label: Type.String({ minLength: 1 }), note: Type.Optional(Type.String()) }, { additionalProperties: false }),
        status: 202,
        handler: ({ body, file }) => {
          seen.push({ body, name: file!.originalName, type: file!.declaredType, size: file!.size, content: readFileSync(file!.path, 'utf8'), path: file!.path });
          return { data: { size: file!.size } };
        },
      }),
    );
  },
});

/** Resolves once `path` no longer exists; fails the test if it is still there after `timeoutMs`. */
async function waitUntilGone(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} still exists ${timeoutMs} ms after the response`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [probe], config: { uploadLimit: '1kb' } });
});
afterAll(() => kit?.stop());
beforeEach(() => {
  seen = [];
});

describe('multipart uploads', () => {
  it('hands the handler the text fields as the body and the file spooled under a server-chosen name, deleted after the response', async () => {
    const res = await kit.api
      .post('/api/v1/upload-probe')
      .field('label', 'prices')
      .attach('file', Buffer.from('a,b\n1,2\n'), { filename: '../../etc/passwd', contentType: 'text/csv' })
      .expect(202);
    expect(res.body).toEqual({ data: { size: 8 } });
    expect(seen).toHaveLength(1);
    // busboy keeps only the last segment of the client's name; it is data either way.
    expect(seen[0]).toMatchObject({ body: { label: 'prices' }, name: 'passwd', type: 'text/csv', size: 8, content: 'a,b\n1,2\n' });
    expect(seen[0].path).not.toContain('passwd');
    // Deleted when the response closes, asynchronously: a loaded machine took more than 50 ms once.
    await waitUntilGone(seen[0].path, 5000);
  });

  it('413 for a file over HTTP_UPLOAD_LIMIT; the handler never runs', async () => {
    const res = await kit.api
      .post('/api/v1/upload-probe')
      .field('label', 'big')
      .attach('file', Buffer.alloc(2048, 'x'), { filename: 'big.csv', contentType: 'text/csv' })
      .expect(413);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('upload limit'), data: [] });
    expect(seen).toEqual([]);
  });

  it('422 naming a missing file, a missing field and an unknown field together', async () => {
    const res = await kit.api.post('/api/v1/upload-probe').field('colour', 'red').expect(422);
    expect(res.body.errors).toEqual({ file: ['a file is required'] });
    const fields = await kit.api
      .post('/api/v1/upload-probe')
      .field('colour', 'red')
      .attach('file', Buffer.from('x'), { filename: 'x.csv' })
      .expect(422);
    expect(fields.body.errors).toEqual({ label: ['is required'], colour: ['is not allowed'] });
  });

  it('422 for a file under another field name', async () => {
    const res = await kit.api
      .post('/api/v1/upload-probe')
      .field('label', 'x')
      .attach('document', Buffer.from('x'), { filename: 'x.csv' })
      .expect(422);
    expect(res.body.errors).toEqual({ document: ['unexpected file; send it as "file"'] });
  });

  it('400 for a body cut off inside the file part; nothing reaches the handler and the server keeps serving', async () => {
    // No closing boundary: busboy errors the file stream ("Unexpected end of form"), which once ended the process.
    const res = await kit.api
      .post('/api/v1/upload-probe')
      .set('Content-Type', 'multipart/form-data; boundary=xyz')
      .send('--xyz\r\nContent-Disposition: form-data; name="label"\r\n\r\nx\r\n--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nq,a\n1,2')
      .expect(400);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('Malformed multipart body'), data: [] });
    expect(seen).toEqual([]);
    await kit.api.get('/healthz').expect(200);
  });

  it('keeps form fields named like Object.prototype members as data (422 for unknown ones, never a 500)', async () => {
    const res = await kit.api
      .post('/api/v1/upload-probe')
      .field('label', 'x')
      .field('__proto__', 'p')
      .field('constructor', 'c')
      .attach('file', Buffer.from('x'), { filename: 'x.csv' })
      .expect(422);
    // Parsed from text: an object literal would read `__proto__` as the prototype.
    expect(res.body.errors).toEqual(JSON.parse('{"__proto__": ["is not allowed"], "constructor": ["is not allowed"]}'));
  });

  it('415 for a JSON body', async () => {
    await kit.api.post('/api/v1/upload-probe').send({ label: 'x' }).expect(415);
  });

  it('is documented as multipart/form-data with the file as binary', async () => {
    const doc = (await kit.api.get('/api/v1/openapi.json').expect(200)).body;
    const body = doc.paths['/api/v1/upload-probe'].post.requestBody;
    expect(body.content['multipart/form-data'].schema).toMatchObject({
      properties: { label: { type: 'string' }, file: { type: 'string', format: 'binary', description: 'Any file' } },
      required: ['label', 'file'],
    });
    expect(doc.paths['/api/v1/upload-probe'].post.responses['413']).toBeDefined();
  });
});
