import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { InvalidStorageKeyError, StoredFileNotFoundError } from '../../../plugins/storage';
import { FsFileStorage } from '../../../plugins/storage/fs-file-storage';

const bytesOf = async (body: Readable) => Buffer.concat(await body.toArray());

let parent: string;
let root: string;
let storage: FsFileStorage;
beforeEach(() => {
  parent = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-fs-storage-'));
  root = path.join(parent, 'files');
  storage = new FsFileStorage(root);
});
afterEach(() => fs.rmSync(parent, { recursive: true, force: true }));

describe('the filesystem storage driver', () => {
  it('keeps a buffer under its key, as a plain file in new folders, and reads it back with its type', async () => {
    const audio = Buffer.from('RIFF....WAVEfmt audio bytes');
    await expect(storage.put('transcriptions/t1/a.wav', audio, { contentType: 'audio/wav' })).resolves.toEqual({ path: 'transcriptions/t1/a.wav', size: audio.length });

    expect(fs.readFileSync(path.join(root, 'transcriptions/t1/a.wav'))).toEqual(audio);
    const read = await storage.read('transcriptions/t1/a.wav');
    expect({ size: read.size, contentType: read.contentType }).toEqual({ size: audio.length, contentType: 'audio/wav' });
    expect(await bytesOf(read.body)).toEqual(audio);
    expect(storage.driver).toBe('fs');
  });

  it('writes a stream of unknown length and counts it', async () => {
    const chunks = [Buffer.alloc(70_000, 1), Buffer.alloc(3, 2), Buffer.alloc(100_000, 3)];
    const stored = await storage.put('calls/t1/rec.ogg', Readable.from(chunks), { contentType: 'audio/ogg' });
    expect(stored).toEqual({ path: 'calls/t1/rec.ogg', size: 170_003 });
    const read = await storage.read('calls/t1/rec.ogg');
    expect(await bytesOf(read.body)).toEqual(Buffer.concat(chunks));
    expect(read.contentType).toBe('audio/ogg');
  });

  it('replaces a file whole, leaving no temporary file, while a reader already open keeps the old bytes', async () => {
    await storage.put('a/b.bin', Buffer.alloc(200_000, 'o'), { contentType: 'application/old' });
    const before = await storage.read('a/b.bin');

    await storage.put('a/b.bin', Buffer.from('new'), { contentType: 'text/plain' });

    expect(await bytesOf(before.body)).toEqual(Buffer.alloc(200_000, 'o'));
    const after = await storage.read('a/b.bin');
    expect({ size: after.size, contentType: after.contentType, bytes: (await bytesOf(after.body)).toString() }).toEqual({ size: 3, contentType: 'text/plain', bytes: 'new' });
    expect(fs.readdirSync(path.join(root, 'a')).sort()).toEqual(['.b.bin.meta.json', 'b.bin']);
  });

  it('removes a file and its type, and removing what is not there does nothing', async () => {
    await storage.put('x/y.txt', Buffer.from('y'), { contentType: 'text/plain' });
    await storage.remove('x/y.txt');
    expect(fs.readdirSync(path.join(root, 'x'))).toEqual([]);
    await expect(storage.read('x/y.txt')).rejects.toBeInstanceOf(StoredFileNotFoundError);
    await expect(storage.remove('x/y.txt')).resolves.toBeUndefined();
    await expect(storage.remove('never/was.txt')).resolves.toBeUndefined();
  });

  it('moves a file and its type to a new key, in new folders, replacing what was there; a missing source is StoredFileNotFoundError', async () => {
    await storage.put('incoming/u1.wav', Buffer.from('moved bytes'), { contentType: 'audio/wav' });
    await storage.put('transcriptions/t1/u1.wav', Buffer.from('old'), { contentType: 'text/plain' });
    await expect(storage.move('incoming/u1.wav', 'transcriptions/t1/u1.wav')).resolves.toEqual({ path: 'transcriptions/t1/u1.wav' });
    const read = await storage.read('transcriptions/t1/u1.wav');
    expect({ contentType: read.contentType, bytes: (await bytesOf(read.body)).toString() }).toEqual({ contentType: 'audio/wav', bytes: 'moved bytes' });
    expect(fs.readdirSync(path.join(root, 'incoming'))).toEqual([]);
    await expect(storage.read('incoming/u1.wav')).rejects.toBeInstanceOf(StoredFileNotFoundError);
    await expect(storage.move('incoming/u1.wav', 'elsewhere/u1.wav')).rejects.toThrow(new StoredFileNotFoundError('no stored file "incoming/u1.wav"'));
    await expect(storage.move('../x', 'a/b')).rejects.toBeInstanceOf(InvalidStorageKeyError);
    await expect(storage.move('transcriptions/t1/u1.wav', '../x')).rejects.toBeInstanceOf(InvalidStorageKeyError);
    expect(fs.readdirSync(parent)).toEqual(['files']);
  });

  it('answers StoredFileNotFoundError for a missing file, under a missing folder, or where a key is only a folder', async () => {
    await storage.put('dir/inner.txt', Buffer.from('i'), { contentType: 'text/plain' });
    for (const key of ['nothing.wav', 'no/such/folder.wav', 'dir', 'dir/inner.txt/below']) {
      await expect(storage.read(key)).rejects.toThrow(new StoredFileNotFoundError(`no stored file "${key}"`));
    }
    await expect(storage.remove('dir')).resolves.toBeUndefined();
    expect(fs.existsSync(path.join(root, 'dir/inner.txt'))).toBe(true);
  });

  it('refuses keys that could leave its folder, in every operation, writing nothing anywhere', async () => {
    fs.mkdirSync(root);
    const escapes = ['../outside.txt', 'a/../../outside.txt', '..', '/etc/passwd', 'C:/outside.txt', 'a\\..\\..\\outside.txt', 'a\0b', '', 'a//b', 'a/', './a', 'a/.hidden', 'a/\u0007'];
    for (const key of escapes) {
      await expect(storage.put(key, Buffer.from('x'), { contentType: 'text/plain' })).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.put(key, Readable.from([Buffer.from('x')]), { contentType: 'text/plain' })).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.read(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.remove(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.signedUrl(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
    }
    await expect(storage.put(`${'a'.repeat(1020)}/é.txt`, Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow('is longer than 1024 bytes');
    expect(fs.readdirSync(parent)).toEqual(['files']);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('keeps the old file when a write fails: a stream that breaks, or bytes other than the size given', async () => {
    await storage.put('keep.bin', Buffer.from('old'), { contentType: 'text/plain' });
    const breaking = new Readable({ read() {} });
    breaking.push(Buffer.alloc(10_000, 1));
    setImmediate(() => breaking.destroy(new Error('client went away')));
    await expect(storage.put('keep.bin', breaking, { contentType: 'audio/wav' })).rejects.toThrow('client went away');
    await expect(storage.put('keep.bin', Buffer.from('four'), { contentType: 'audio/wav', size: 5 })).rejects.toThrow('"keep.bin" was to be 5 bytes, but 4 arrived');
    await expect(storage.put('keep.bin', Readable.from([Buffer.from('sixsix')]), { contentType: 'audio/wav', size: 5 })).rejects.toThrow('was to be 5 bytes, but 6 arrived');

    const read = await storage.read('keep.bin');
    expect({ type: read.contentType, bytes: (await bytesOf(read.body)).toString() }).toEqual({ type: 'text/plain', bytes: 'old' });
    expect(fs.readdirSync(root).sort()).toEqual(['.keep.bin.meta.json', 'keep.bin']);
  });

  it('has no signed URLs (the owning plugin serves the file through an authenticated route)', async () => {
    await storage.put('s.txt', Buffer.from('s'), { contentType: 'text/plain' });
    await expect(storage.signedUrl('s.txt')).resolves.toBeNull();
  });

  it('reads a file put there by hand as bytes of no known type', async () => {
    fs.mkdirSync(path.join(root, 'hand'), { recursive: true });
    fs.writeFileSync(path.join(root, 'hand/made.bin'), 'abc');
    const read = await storage.read('hand/made.bin');
    expect({ size: read.size, contentType: read.contentType }).toEqual({ size: 3, contentType: 'application/octet-stream' });
    read.body.destroy();
  });
});

describe('the filesystem storage driver listing files', () => {
  const HOUR = 3_600_000;
  const listed = async (prefix: string, options?: { olderThan?: Date }) => {
    const found = [];
    for await (const file of storage.list(prefix, options)) found.push(file);
    return found.sort((a, b) => (a.key < b.key ? -1 : 1));
  };
  const keysOf = async (prefix: string, options?: { olderThan?: Date }) => (await listed(prefix, options)).map((file) => file.key);
  /** Sets a stored file's modification time. */
  const age = (key: string, at: Date) => fs.utimesSync(path.join(root, key), at, at);

  beforeEach(async () => {
    for (const key of ['transcriptions/incoming/a.wav', 'transcriptions/incoming/b.ogg', 'transcriptions/incoming/deep/c.wav', 'transcriptions/t1/d.wav', 'transcriptions/inbox.txt', 'calls/t1/e.wav']) {
      await storage.put(key, Buffer.from(key), { contentType: 'audio/wav' });
    }
  });

  it('finds the files under a prefix, in sub-folders too, with their size and modification time, and nothing of its own (types, temporary files)', async () => {
    fs.writeFileSync(path.join(root, 'transcriptions/incoming/.x.wav.0190a3c4-0000-7000-8000-000000000000.tmp'), 'partial');
    const stat = fs.statSync(path.join(root, 'transcriptions/incoming/a.wav'));
    const files = await listed('transcriptions/incoming/');
    expect(files.map((file) => file.key)).toEqual(['transcriptions/incoming/a.wav', 'transcriptions/incoming/b.ogg', 'transcriptions/incoming/deep/c.wav']);
    expect(files[0]).toEqual({ key: 'transcriptions/incoming/a.wav', size: 'transcriptions/incoming/a.wav'.length, modifiedAt: stat.mtime });
  });

  it('takes a prefix that ends inside a name, as S3 does, and an empty one for the whole store', async () => {
    expect(await keysOf('transcriptions/in')).toEqual(['transcriptions/inbox.txt', 'transcriptions/incoming/a.wav', 'transcriptions/incoming/b.ogg', 'transcriptions/incoming/deep/c.wav']);
    expect(await keysOf('transcriptions/incoming/a')).toEqual(['transcriptions/incoming/a.wav']);
    expect(await keysOf('')).toHaveLength(6);
    expect(await keysOf('calls/t1/e.wav')).toEqual(['calls/t1/e.wav']);
  });

  it('finds nothing under a folder that is not there, or where a file is', async () => {
    expect(await keysOf('nothing/here/')).toEqual([]);
    expect(await keysOf('calls/t1/e.wav/')).toEqual([]);
    expect(await keysOf('zz')).toEqual([]);
  });

  it('with olderThan, only the files last written before it', async () => {
    const now = Date.now();
    age('transcriptions/incoming/a.wav', new Date(now - 3 * HOUR));
    age('transcriptions/incoming/deep/c.wav', new Date(now - 2 * HOUR));
    expect(await keysOf('transcriptions/incoming/', { olderThan: new Date(now - HOUR) })).toEqual(['transcriptions/incoming/a.wav', 'transcriptions/incoming/deep/c.wav']);
    expect(await keysOf('transcriptions/incoming/', { olderThan: new Date(now - 2.5 * HOUR) })).toEqual(['transcriptions/incoming/a.wav']);
    expect(await keysOf('transcriptions/incoming/', { olderThan: new Date(now - 4 * HOUR) })).toEqual([]);
  });

  it('reads a large folder as the caller iterates, and lets it stop part-way', async () => {
    for (let i = 0; i < 150; i++) fs.writeFileSync(path.join(root, `transcriptions/incoming/many-${i}.wav`), 'x');
    expect(await keysOf('transcriptions/incoming/many-')).toHaveLength(150);
    let seen = 0;
    for await (const file of storage.list('transcriptions/incoming/')) {
      expect(file.key.startsWith('transcriptions/incoming/')).toBe(true);
      if (++seen === 10) break;
    }
    expect(seen).toBe(10);
  });

  it('skips what no key can name and does not follow symbolic links out of its folder', async () => {
    const outside = path.join(parent, 'outside');
    fs.mkdirSync(path.join(outside, 'secret'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'secret/passwd'), 'root');
    fs.symlinkSync(outside, path.join(root, 'transcriptions/incoming/link'));
    fs.symlinkSync(path.join(outside, 'secret/passwd'), path.join(root, 'transcriptions/incoming/passwd.wav'));
    fs.writeFileSync(path.join(root, 'transcriptions/incoming/back\\slash.wav'), 'x');
    fs.mkdirSync(path.join(root, 'transcriptions/incoming/.hidden'));
    fs.writeFileSync(path.join(root, 'transcriptions/incoming/.hidden/f.wav'), 'x');
    expect(await keysOf('transcriptions/incoming/')).toEqual(['transcriptions/incoming/a.wav', 'transcriptions/incoming/b.ogg', 'transcriptions/incoming/deep/c.wav']);
  });

  it('refuses a prefix that could leave its folder, reading nothing', async () => {
    for (const prefix of ['../', '../files/', 'a/../../', '/etc/', '..', 'a/.', 'a\\..\\', 'a//', 'a\0']) {
      await expect(keysOf(prefix)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.removeUnfinished(prefix, { olderThan: new Date() })).rejects.toBeInstanceOf(InvalidStorageKeyError);
    }
  });
});

describe('the filesystem storage driver removing unfinished writes', () => {
  const HOUR = 3_600_000;
  const incoming = () => path.join(root, 'transcriptions/incoming');
  const at = (file: string, when: Date) => fs.utimesSync(file, when, when);
  const temp = (name: string) => `.${name}.${'0190a3c4-1b2c-7d3e-8f40-5a6b7c8d9e0f'}.tmp`;
  /** The temporary file of the put in progress under incoming/, once `size` bytes have reached it. */
  const tempFileOf = async (size: number) => {
    for (let i = 0; i < 100; i++) {
      const found = fs.existsSync(incoming()) && fs.readdirSync(incoming()).find((name) => name.endsWith('.tmp'));
      if (found && fs.statSync(path.join(incoming(), found)).size === size) return path.join(incoming(), found);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no write reached ${size} bytes`);
  };

  it('removes old temporary files and types whose file never arrived under the prefix, and nothing else', async () => {
    await storage.put('transcriptions/incoming/whole.wav', Buffer.from('whole'), { contentType: 'audio/wav' });
    await storage.put('transcriptions/t1/kept.wav', Buffer.from('kept'), { contentType: 'audio/wav' });
    const old = new Date(Date.now() - 3 * HOUR);
    const files = {
      deadWrite: path.join(incoming(), temp('u1.wav')),
      deadTypeWrite: path.join(incoming(), temp('u1.wav.meta.json')),
      orphanType: path.join(incoming(), '.u2.wav.meta.json'),
      freshWrite: path.join(incoming(), temp('u3.wav')),
      deadWriteElsewhere: path.join(root, 'transcriptions/t1', temp('u4.wav')),
    };
    for (const file of Object.values(files)) fs.writeFileSync(file, 'x');
    for (const file of [files.deadWrite, files.deadTypeWrite, files.orphanType, files.deadWriteElsewhere, path.join(incoming(), 'whole.wav'), path.join(incoming(), '.whole.wav.meta.json')]) at(file, old);

    await expect(storage.removeUnfinished('transcriptions/incoming/', { olderThan: new Date(Date.now() - HOUR) })).resolves.toBe(3);

    expect(fs.readdirSync(incoming()).sort()).toEqual(['.whole.wav.meta.json', path.basename(files.freshWrite), 'whole.wav'].sort());
    expect(fs.existsSync(files.deadWriteElsewhere)).toBe(true);
    const read = await storage.read('transcriptions/incoming/whole.wav');
    expect(read.contentType).toBe('audio/wav');
    read.body.destroy();
    await expect(storage.removeUnfinished('transcriptions/incoming/', { olderThan: new Date(Date.now() - HOUR) })).resolves.toBe(0);
  });

  it('removes a write that stopped for longer than the age (as a dead process leaves it)', async () => {
    const body = new Readable({ read() {} });
    const put = storage.put('transcriptions/incoming/slow.wav', body, { contentType: 'audio/wav' });
    body.push(Buffer.alloc(1000, 1));
    const file = await tempFileOf(1000);
    // As if it had begun hours ago and stalled; then bytes arrive again.
    at(file, new Date(Date.now() - 3 * HOUR));
    expect(await storage.removeUnfinished('transcriptions/incoming/', { olderThan: new Date(Date.now() - HOUR) })).toBe(1);
    expect(fs.existsSync(file)).toBe(false);
    // Here the writer is alive after all: its rename into place finds no file, and the put fails rather than store nothing.
    body.push(null);
    await expect(put).rejects.toThrow('ENOENT');
  });

  it('never removes a write still streaming in: each chunk that lands touches its temporary file, however long ago it began', async () => {
    const body = new Readable({ read() {} });
    const put = storage.put('transcriptions/incoming/steady.wav', body, { contentType: 'audio/wav' });
    body.push(Buffer.alloc(1000, 1));
    const file = await tempFileOf(1000);
    at(file, new Date(Date.now() - 3 * HOUR));
    body.push(Buffer.alloc(1000, 2));
    await tempFileOf(2000);
    expect(fs.statSync(file).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    expect(await storage.removeUnfinished('transcriptions/incoming/', { olderThan: new Date(Date.now() - HOUR) })).toBe(0);
    body.push(null);
    await expect(put).resolves.toEqual({ path: 'transcriptions/incoming/steady.wav', size: 2000 });
  });
});
