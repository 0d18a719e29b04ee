import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { InvalidStorageKeyError, StoredFileNotFoundError } from '../../../plugins/storage';
import { S3FileStorage, type S3StorageOptions } from '../../../plugins/storage/s3-file-storage';
import { startLocalS3, type LocalS3 } from './local-s3';
import { startLocalS3Uploads, type LocalS3Uploads } from './local-s3-uploads';

const bytesOf = async (body: Readable) => Buffer.concat(await body.toArray());

let s3: LocalS3;
let options: S3StorageOptions;
let storage: S3FileStorage;
beforeAll(async () => {
  s3 = await startLocalS3(['recordings']);
  options = { endpoint: s3.url, region: 'eu-west-1', bucket: 'recordings', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true, keyPrefix: '/switchboard/' };
  storage = new S3FileStorage(options);
});
afterAll(async () => {
  storage?.close();
  await s3?.close();
});

/** A recorded request as `METHOD /path` and the names of its query parameters. */
function described(request: { method: string; url: string }): string {
  const url = new URL(request.url, 'http://s3');
  const names = [...url.searchParams.keys()].filter((name) => name !== 'x-id');
  return `${request.method} ${url.pathname}${names.length ? ` ?${names.join('&')}` : ''}`;
}

/** The requests made while `run` ran. */
async function requestsOf(run: () => Promise<unknown>) {
  const from = s3.requests.length;
  await run();
  return s3.requests.slice(from);
}

describe('the S3 storage driver', () => {
  it('puts a buffer as one signed PUT to the configured endpoint, under the key prefix, and gets it back with its type', async () => {
    const audio = Buffer.from('RIFF....WAVE audio');
    let stored: unknown;
    const requests = await requestsOf(async () => (stored = await storage.put('transcriptions/t1/a.wav', audio, { contentType: 'audio/wav' })));

    expect(stored).toEqual({ path: 'switchboard/transcriptions/t1/a.wav', size: audio.length });
    expect(requests.map(described)).toEqual(['PUT /recordings/switchboard/transcriptions/t1/a.wav']);
    expect(requests[0].headers).toMatchObject({ 'content-type': 'audio/wav', 'content-length': String(audio.length) });
    expect(requests[0].headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=S3RVER\/\d{8}\/eu-west-1\/s3\/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/);

    const read = await storage.read('transcriptions/t1/a.wav');
    expect({ size: read.size, contentType: read.contentType }).toEqual({ size: audio.length, contentType: 'audio/wav' });
    expect(await bytesOf(read.body)).toEqual(audio);
    expect(storage.driver).toBe('s3');
  });

  it('streams a body of known size as one PUT with that length', async () => {
    const chunks = [Buffer.alloc(40_000, 1), Buffer.alloc(25_000, 2)];
    let stored: unknown;
    const requests = await requestsOf(async () => (stored = await storage.put('calls/t1/r.ogg', Readable.from(chunks), { contentType: 'audio/ogg', size: 65_000 })));
    expect(stored).toEqual({ path: 'switchboard/calls/t1/r.ogg', size: 65_000 });
    expect(requests.map((r) => [r.method, r.headers['content-length']])).toEqual([['PUT', '65000']]);
    expect(await bytesOf((await storage.read('calls/t1/r.ogg')).body)).toEqual(Buffer.concat(chunks));
  });

  it('uploads a stream of unknown length in parts when it is large, and counts it', async () => {
    const mib = 1024 * 1024;
    const chunks = Array.from({ length: 13 }, (_, i) => Buffer.alloc(mib / 2, i));
    let stored: unknown;
    const requests = await requestsOf(async () => (stored = await storage.put('calls/t1/long.wav', Readable.from(chunks), { contentType: 'audio/wav' })));

    expect(stored).toEqual({ path: 'switchboard/calls/t1/long.wav', size: 6.5 * mib });
    expect(requests.map(described).sort()).toEqual([
      'POST /recordings/switchboard/calls/t1/long.wav ?uploadId',
      'POST /recordings/switchboard/calls/t1/long.wav ?uploads',
      'PUT /recordings/switchboard/calls/t1/long.wav ?partNumber&uploadId',
      'PUT /recordings/switchboard/calls/t1/long.wav ?partNumber&uploadId',
    ]);
    expect(requests.every((r) => r.headers.authorization?.startsWith('AWS4-HMAC-SHA256 Credential=S3RVER/'))).toBe(true);
    const read = await storage.read('calls/t1/long.wav');
    expect({ size: read.size, contentType: read.contentType }).toEqual({ size: 6.5 * mib, contentType: 'audio/wav' });
    expect((await bytesOf(read.body)).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('uploads a small stream of unknown length too', async () => {
    await expect(storage.put('small.txt', Readable.from([Buffer.from('sm'), Buffer.from('all')]), { contentType: 'text/plain' })).resolves.toEqual({ path: 'switchboard/small.txt', size: 5 });
    expect((await bytesOf((await storage.read('small.txt')).body)).toString()).toBe('small');
  });

  it('fails an upload whose stream breaks, and stores nothing', async () => {
    const breaking = new Readable({ read() {} });
    breaking.push(Buffer.alloc(10_000, 1));
    setImmediate(() => breaking.destroy(new Error('client went away')));
    await expect(storage.put('broken.wav', breaking, { contentType: 'audio/wav' })).rejects.toThrow('client went away');
    await expect(storage.read('broken.wav')).rejects.toBeInstanceOf(StoredFileNotFoundError);
  });

  it('replaces an object, removes it, and answers StoredFileNotFoundError once it is gone; removing it again does nothing', async () => {
    await storage.put('r/x.bin', Buffer.from('one'), { contentType: 'application/one' });
    await storage.put('r/x.bin', Buffer.from('second'), { contentType: 'application/two' });
    const read = await storage.read('r/x.bin');
    expect({ type: read.contentType, bytes: (await bytesOf(read.body)).toString() }).toEqual({ type: 'application/two', bytes: 'second' });

    const removal = await requestsOf(() => storage.remove('r/x.bin'));
    expect(removal.map(described)).toEqual(['DELETE /recordings/switchboard/r/x.bin']);
    await expect(storage.read('r/x.bin')).rejects.toThrow(new StoredFileNotFoundError('no stored file "r/x.bin"'));
    await expect(storage.remove('r/x.bin')).resolves.toBeUndefined();
    await expect(storage.read('never/there.wav')).rejects.toBeInstanceOf(StoredFileNotFoundError);
  });

  it('moves an object inside the store (a copy, then the source deleted), its type kept; a missing source is StoredFileNotFoundError', async () => {
    await storage.put('incoming/u 1.wav', Buffer.from('moved bytes'), { contentType: 'audio/wav' });
    let moved: unknown;
    const requests = await requestsOf(async () => (moved = await storage.move('incoming/u 1.wav', 'transcriptions/t1/u1.wav')));
    expect(moved).toEqual({ path: 'switchboard/transcriptions/t1/u1.wav' });
    expect(requests.map(described)).toEqual(['PUT /recordings/switchboard/transcriptions/t1/u1.wav', 'DELETE /recordings/switchboard/incoming/u%201.wav']);
    expect(requests[0].headers['x-amz-copy-source']).toBe('recordings/switchboard/incoming/u%201.wav');
    const read = await storage.read('transcriptions/t1/u1.wav');
    expect({ contentType: read.contentType, bytes: (await bytesOf(read.body)).toString() }).toEqual({ contentType: 'audio/wav', bytes: 'moved bytes' });
    await expect(storage.read('incoming/u 1.wav')).rejects.toBeInstanceOf(StoredFileNotFoundError);
    await expect(storage.move('incoming/u 1.wav', 'elsewhere/u1.wav')).rejects.toThrow(new StoredFileNotFoundError('no stored file "incoming/u 1.wav"'));
  });

  it('does not take a missing bucket for a missing file', async () => {
    const elsewhere = new S3FileStorage({ ...options, bucket: 'no-such-bucket' });
    try {
      const error = await elsewhere.read('a.wav').catch((e: Error) => e);
      expect(error).not.toBeInstanceOf(StoredFileNotFoundError);
      expect((error as Error).name).toBe('NoSuchBucket');
    } finally {
      elsewhere.close();
    }
  });

  it('refuses the keys the filesystem driver refuses, before any request', async () => {
    const requests = await requestsOf(async () => {
      for (const key of ['../x', 'a/../../x', '/abs', 'a\0b', 'a//b', '.hidden']) {
        await expect(storage.put(key, Buffer.from('x'), { contentType: 'text/plain' })).rejects.toBeInstanceOf(InvalidStorageKeyError);
        await expect(storage.read(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
        await expect(storage.remove(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
        await expect(storage.signedUrl(key, 60)).rejects.toBeInstanceOf(InvalidStorageKeyError);
        await expect(storage.move(key, 'a/b')).rejects.toBeInstanceOf(InvalidStorageKeyError);
        await expect(storage.move('a/b', key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      }
    });
    expect(requests).toEqual([]);
  });

  it('signs a GET URL that plain fetch reads until its ttl is over, when the server refuses it as expired', async () => {
    await storage.put('signed/a.wav', Buffer.from('signed bytes'), { contentType: 'audio/wav' });
    const url = new URL((await storage.signedUrl('signed/a.wav', 1))!);
    expect(`${url.origin}${url.pathname}`).toBe(`${s3.url}/recordings/switchboard/signed/a.wav`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('1');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^S3RVER\/\d{8}\/eu-west-1\/s3\/aws4_request$/);

    const fresh = await fetch(url);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('content-type')).toBe('audio/wav');
    expect(await fresh.text()).toBe('signed bytes');

    // Signed at X-Amz-Date (whole seconds), valid for X-Amz-Expires seconds after it.
    const signedAt = Date.parse(url.searchParams.get('X-Amz-Date')!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, signedAt + 2000 - Date.now())));
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
  });

  it('refuses a ttl a signed URL cannot have', async () => {
    for (const ttl of [0, -1, 1.5, 7 * 24 * 3600 + 1]) {
      await expect(storage.signedUrl('signed/a.wav', ttl)).rejects.toThrow(RangeError);
    }
  });
});

describe('the S3 storage driver listing objects', () => {
  let paged: S3FileStorage;
  beforeAll(async () => {
    // Two objects a page, to prove the paging with a handful of objects.
    paged = new S3FileStorage({ ...options, listPageSize: 2 });
    for (const key of ['list/in/a.wav', 'list/in/b.wav', 'list/in/c.wav', 'list/in/deep/d.wav', 'list/in/e.wav', 'list/in/f.wav', 'list/in/g.wav', 'list/inbox.txt', 'list/other/h.wav']) {
      await storage.put(key, Buffer.from(key), { contentType: 'audio/wav' });
    }
  });
  afterAll(() => paged?.close());

  const keysOf = async (store: S3FileStorage, prefix: string, options?: { olderThan?: Date }) => {
    const keys: string[] = [];
    for await (const file of store.list(prefix, options)) keys.push(file.key);
    return keys;
  };
  /** The ListObjectsV2 requests made while `run` ran, as their query parameters. */
  const listings = async (run: () => Promise<unknown>) =>
    (await requestsOf(run)).map((request) => Object.fromEntries(new URL(request.url, 'http://s3').searchParams));

  it('lists a page at a time with ListObjectsV2, following the continuation token, keys without the key prefix, with size and time', async () => {
    let files: Array<{ key: string; size: number; modifiedAt: Date }> = [];
    const started = Date.now();
    const queries = await listings(async () => {
      for await (const file of paged.list('list/in/')) files.push(file);
    });
    files = files.sort((a, b) => (a.key < b.key ? -1 : 1));
    expect(files.map((file) => file.key)).toEqual(['list/in/a.wav', 'list/in/b.wav', 'list/in/c.wav', 'list/in/deep/d.wav', 'list/in/e.wav', 'list/in/f.wav', 'list/in/g.wav']);
    expect(files[0]).toEqual({ key: 'list/in/a.wav', size: 'list/in/a.wav'.length, modifiedAt: expect.any(Date) });
    // S3 gives LastModified to the second.
    expect(Math.abs(files[0].modifiedAt.getTime() - started)).toBeLessThan(60_000);
    expect(queries).toHaveLength(4);
    expect(queries[0]).toMatchObject({ 'list-type': '2', prefix: 'switchboard/list/in/', 'max-keys': '2' });
    expect(queries[0]).not.toHaveProperty('continuation-token');
    for (const later of queries.slice(1)) expect(later).toMatchObject({ 'list-type': '2', prefix: 'switchboard/list/in/', 'max-keys': '2', 'continuation-token': expect.any(String) });
  });

  it('asks for the next page only when the caller gets to it', async () => {
    const queries = await listings(async () => {
      for await (const file of paged.list('list/in/')) {
        expect(file.key).toBe('list/in/a.wav');
        break;
      }
    });
    expect(queries).toHaveLength(1);
  });

  it('takes a prefix that ends inside a name, and an empty one for every object under the key prefix', async () => {
    expect(await keysOf(paged, 'list/in')).toHaveLength(8);
    expect(await keysOf(paged, 'list/in/deep')).toEqual(['list/in/deep/d.wav']);
    expect(await keysOf(paged, 'list/nothing/')).toEqual([]);
    const everything = await keysOf(storage, '');
    expect(everything).toEqual(expect.arrayContaining(['list/other/h.wav', 'list/inbox.txt', 'small.txt']));
    expect(everything.every((key) => !key.startsWith('switchboard/'))).toBe(true);
  });

  it('with olderThan, only the objects last modified before it', async () => {
    const now = Date.now();
    s3.backdate('recordings', 'switchboard/list/in/b.wav', new Date(now - 3 * 3_600_000));
    s3.backdate('recordings', 'switchboard/list/in/deep/d.wav', new Date(now - 2 * 3_600_000));
    expect((await keysOf(paged, 'list/in/', { olderThan: new Date(now - 3_600_000) })).sort()).toEqual(['list/in/b.wav', 'list/in/deep/d.wav']);
    expect(await keysOf(paged, 'list/in/', { olderThan: new Date(now - 2.5 * 3_600_000) })).toEqual(['list/in/b.wav']);
    expect(await keysOf(paged, 'list/in/', { olderThan: new Date(now - 4 * 3_600_000) })).toEqual([]);
  });

  it('skips objects no key can name (a console’s folder marker, a dot-name)', async () => {
    const raw = new S3FileStorage({ ...options, keyPrefix: '' });
    try {
      // Written beside the driver, as another program would: the driver itself refuses these keys.
      await s3Put('switchboard/list/in/folder/');
      await s3Put('switchboard/list/in/.hidden');
      expect(await keysOf(paged, 'list/in/')).toHaveLength(7);
      expect(await keysOf(raw, 'switchboard/list/in/deep/')).toEqual(['switchboard/list/in/deep/d.wav']);
    } finally {
      raw.close();
    }
  });

  it('refuses a prefix that could leave the store, before any request', async () => {
    const requests = await requestsOf(async () => {
      for (const prefix of ['../', 'a/../../', '/abs/', '..', 'a//', 'a/.']) {
        await expect(keysOf(paged, prefix)).rejects.toBeInstanceOf(InvalidStorageKeyError);
        await expect(paged.removeUnfinished(prefix, { olderThan: new Date() })).rejects.toBeInstanceOf(InvalidStorageKeyError);
      }
    });
    expect(requests).toEqual([]);
  });
});

/** An object put with a plain signed PUT, under a key the driver would refuse. */
async function s3Put(objectKey: string): Promise<void> {
  const client = new S3Client({ endpoint: s3.url, region: 'eu-west-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  try {
    await client.send(new PutObjectCommand({ Bucket: 'recordings', Key: objectKey, Body: 'x' }));
  } finally {
    client.destroy();
  }
}

describe('the S3 storage driver removing unfinished writes', () => {
  let uploads: LocalS3Uploads;
  let store: S3FileStorage;
  beforeAll(async () => {
    uploads = await startLocalS3Uploads('recordings');
    store = new S3FileStorage({ ...options, endpoint: uploads.url, listPageSize: 2 });
  });
  afterAll(async () => {
    store?.close();
    await uploads?.close();
  });
  beforeEach(() => {
    uploads.uploads.length = 0;
    uploads.requests.length = 0;
  });

  const HOUR = 3_600_000;
  const held = (key: string, uploadId: string, hoursAgo: number) => ({ key: `switchboard/${key}`, uploadId, initiated: new Date(Date.now() - hoursAgo * HOUR) });

  it('aborts the incomplete multipart uploads under the prefix begun before olderThan, listing them page after page', async () => {
    uploads.uploads.push(
      held('in/a.wav', 'u1', 3),
      held('in/a.wav', 'u2', 0),
      held('in/b.wav', 'u3', 5),
      held('in/c.wav', 'u4', 2),
      held('in/d.wav', 'u5', 0.1),
      held('out/e.wav', 'u6', 9),
    );
    await expect(store.removeUnfinished('in/', { olderThan: new Date(Date.now() - HOUR) })).resolves.toBe(3);
    expect(uploads.uploads.map((u) => u.uploadId).sort()).toEqual(['u2', 'u5', 'u6']);

    const described = uploads.requests.map((r) => {
      const url = new URL(r.url, 'http://s3');
      const query = [...url.searchParams]
        .filter(([name]) => name !== 'x-id')
        .map(([name, value]) => (value ? `${name}=${value}` : name))
        .sort();
      return `${r.method} ${url.pathname} ${query.join('&')}`;
    });
    // Three pages of two (the third short), each aborting what it held that was due.
    expect(described).toEqual([
      'GET /recordings/ max-uploads=2&prefix=switchboard/in/&uploads',
      'DELETE /recordings/switchboard/in/a.wav uploadId=u1',
      'GET /recordings/ key-marker=switchboard/in/a.wav&max-uploads=2&prefix=switchboard/in/&upload-id-marker=u2&uploads',
      'DELETE /recordings/switchboard/in/b.wav uploadId=u3',
      'DELETE /recordings/switchboard/in/c.wav uploadId=u4',
      'GET /recordings/ key-marker=switchboard/in/c.wav&max-uploads=2&prefix=switchboard/in/&upload-id-marker=u4&uploads',
    ]);
    expect(uploads.requests.every((r) => r.signed)).toBe(true);
  });

  it('counts none for an upload completed or aborted since it was listed (NoSuchUpload), and goes on', async () => {
    uploads.uploads.push({ ...held('in/a.wav', 'gone', 3), goneBeforeAbort: true }, held('in/b.wav', 'there', 3));
    await expect(store.removeUnfinished('in/', { olderThan: new Date(Date.now() - HOUR) })).resolves.toBe(1);
    expect(uploads.requests.filter((r) => r.method === 'DELETE').map((r) => new URL(r.url, 'http://s3').searchParams.get('uploadId'))).toEqual(['gone', 'there']);
    expect(uploads.uploads.map((u) => u.uploadId)).toEqual(['gone']);
  });

  it('fails on any other error of the store', async () => {
    const elsewhere = new S3FileStorage({ ...options, endpoint: uploads.url, bucket: 'no-such-bucket' });
    try {
      await expect(elsewhere.removeUnfinished('in/', { olderThan: new Date() })).rejects.toMatchObject({ name: 'NoSuchBucket' });
    } finally {
      elsewhere.close();
    }
  });

  it('answers 0 when nothing is due', async () => {
    uploads.uploads.push(held('in/a.wav', 'u1', 0));
    await expect(store.removeUnfinished('in/', { olderThan: new Date(Date.now() - HOUR) })).resolves.toBe(0);
    expect(uploads.uploads).toHaveLength(1);
  });
});
