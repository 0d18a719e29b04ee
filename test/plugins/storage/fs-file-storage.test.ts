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
