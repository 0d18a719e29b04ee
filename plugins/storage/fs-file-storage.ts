import { randomUUID } from 'node:crypto';
import { createWriteStream, type Dir, type Stats } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StoredFileNotFoundError, type FileStorage, type StoredFileEntry } from './file-storage';
import { isStorageKey, storageKeySegments, storagePrefixParts } from './storage-keys';
import { writingBody } from './stream-body';

const UNKNOWN_TYPE = 'application/octet-stream';

/**
 * Files under one folder, each key a path below it. The file itself holds only the bytes
 * (an operator can copy or play it as it is); its content type is a small JSON file
 * beside it, `.<name>.meta.json`, a name no key can have (storage-keys.ts).
 */
export class FsFileStorage implements FileStorage {
  readonly driver = 'fs' as const;
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  async put(key: string, body: Buffer | Readable, options: { contentType: string; size?: number }): Promise<{ path: string; size: number }> {
    return writingBody(body, () => this.write(key, body, options));
  }

  private async write(key: string, body: Buffer | Readable, options: { contentType: string; size?: number }): Promise<{ path: string; size: number }> {
    const { file, meta, dir, name } = this.locate(key);
    await fsp.mkdir(dir, { recursive: true });
    // Written beside the target and renamed over it, so a reader sees the old file or the
    // whole new one, never part of it; flushed first, so a crash cannot leave the rename
    // pointing at bytes that never reached the disk.
    const temp = path.join(dir, `.${name}.${randomUUID()}.tmp`);
    try {
      const size = Buffer.isBuffer(body) ? await writeBuffer(temp, body) : await writeStream(temp, body);
      if (options.size !== undefined && size !== options.size) {
        throw new Error(`storage: "${key}" was to be ${options.size} bytes, but ${size} arrived`);
      }
      // The content type lands first: for a new key (the usual case: keys carry a uuid) a
      // crash in between leaves a type with no file, which reads as no file at all.
      await writeAtomically(meta, JSON.stringify({ contentType: options.contentType }));
      await fsp.rename(temp, file);
      return { path: key, size };
    } catch (error) {
      await fsp.rm(temp, { force: true });
      throw error;
    }
  }

  async read(key: string): Promise<{ body: Readable; size: number; contentType: string }> {
    const { file, meta } = this.locate(key);
    // Opened before anything else: a put replacing the file meanwhile renames a new file
    // in, and this handle keeps reading the old one whole.
    const handle = await fsp.open(file, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') throw notFound(key);
      throw error;
    });
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw notFound(key);
      const contentType = await readContentType(meta);
      return { body: handle.createReadStream(), size: stat.size, contentType };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async move(from: string, to: string): Promise<{ path: string }> {
    const source = this.locate(from);
    const target = this.locate(to);
    await fsp.mkdir(target.dir, { recursive: true });
    // The type first, as put writes it: a crash in between leaves a type with no file.
    try {
      await fsp.rename(source.meta, target.meta);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await unlinkIfThere(target.meta);
    }
    try {
      await fsp.rename(source.file, target.file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw notFound(from);
      throw error;
    }
    return { path: to };
  }

  async remove(key: string): Promise<void> {
    const { file, meta } = this.locate(key);
    await unlinkIfThere(file);
    await unlinkIfThere(meta);
  }

  async signedUrl(key: string): Promise<string | null> {
    this.locate(key);
    return null;
  }

  async *list(prefix: string, options: { olderThan?: Date } = {}): AsyncIterable<StoredFileEntry> {
    const before = options.olderThan?.getTime();
    for await (const found of this.walk(prefix)) {
      // Dot-names are the driver's own (temporary files, content types), never a key's.
      if (found.name.startsWith('.') || !isStorageKey(found.key)) continue;
      const stat = await statIfThere(found.path);
      if (!stat?.isFile()) continue;
      if (before !== undefined && !(stat.mtimeMs < before)) continue;
      yield { key: found.key, size: stat.size, modifiedAt: stat.mtime };
    }
  }

  /**
   * A move renames the type before the file, so under a prefix files are moved into, a
   * type may stand without its file for a moment, dated by its put: sweep only where
   * files are written, never moved to (transcriptions/incoming/ is one).
   */
  async removeUnfinished(prefix: string, options: { olderThan: Date }): Promise<number> {
    const before = options.olderThan.getTime();
    let removed = 0;
    for await (const found of this.walk(prefix)) {
      const left = leftoverOf(found.name);
      if (!left) continue;
      // The key the leftover was written for: it must lie under the prefix too.
      const key = found.key.slice(0, found.key.length - found.name.length) + left.name;
      if (!key.startsWith(prefix)) continue;
      const stat = await statIfThere(found.path);
      if (!stat?.isFile() || !(stat.mtimeMs < before)) continue;
      // A content type is a leftover only while its file is missing (a put that died between the two).
      if (left.kind === 'type' && (await statIfThere(path.join(path.dirname(found.path), left.name)))) continue;
      await unlinkIfThere(found.path);
      removed += 1;
    }
    return removed;
  }

  /**
   * Every plain file below the prefix's folder whose key starts with the prefix (dot-names
   * included: the caller tells them apart), one folder at a time, read in batches as the
   * caller iterates. Symbolic links are not followed: one could point outside the root.
   */
  private async *walk(prefix: string): AsyncIterable<{ key: string; name: string; path: string }> {
    const { folder } = storagePrefixParts(prefix);
    const start = path.join(this.root, ...folder);
    if (start !== this.root && !start.startsWith(this.root + path.sep)) throw new Error(`storage: "${prefix}" resolves outside ${this.root}`);
    const pending: Array<{ dir: string; keyPrefix: string }> = [{ dir: start, keyPrefix: folder.map((segment) => `${segment}/`).join('') }];
    for (let next = pending.pop(); next; next = pending.pop()) {
      let dir: Dir;
      try {
        dir = await fsp.opendir(next.dir);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // Not there (yet, or any more), or a file where the prefix names a folder: nothing below it.
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        throw error;
      }
      for await (const entry of dir) {
        const key = next.keyPrefix + entry.name;
        if (entry.isDirectory()) {
          // Down only where keys under the prefix can be (a dot-folder holds none).
          if (!entry.name.startsWith('.') && (`${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`))) {
            pending.push({ dir: path.join(next.dir, entry.name), keyPrefix: `${key}/` });
          }
        } else if (entry.isFile() && (key.startsWith(prefix) || entry.name.startsWith('.'))) {
          yield { key, name: entry.name, path: path.join(next.dir, entry.name) };
        }
      }
    }
  }

  private locate(key: string): { file: string; meta: string; dir: string; name: string } {
    const file = path.join(this.root, ...storageKeySegments(key));
    // storageKeySegments already refuses every way out; this is the wall behind it.
    if (!file.startsWith(this.root + path.sep)) throw new Error(`storage: "${key}" resolves outside ${this.root}`);
    const dir = path.dirname(file);
    const name = path.basename(file);
    return { file, meta: path.join(dir, `.${name}.meta.json`), dir, name };
  }
}

/**
 * What a put may leave: its temporary file (`.<name>.<uuid>.tmp`; its content type's is
 * `.<name>.meta.json.<uuid>.tmp`, a name under the key's all the same), or a content type
 * (`.<name>.meta.json`); with the name of the file it was for.
 */
function leftoverOf(fileName: string): { kind: 'temporary' | 'type'; name: string } | null {
  const temporary = /^\.(.+)\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/.exec(fileName);
  if (temporary) return { kind: 'temporary', name: temporary[1] };
  const type = /^\.(.+)\.meta\.json$/.exec(fileName);
  return type ? { kind: 'type', name: type[1] } : null;
}

async function statIfThere(file: string): Promise<Stats | null> {
  try {
    return await fsp.lstat(file);
  } catch (error) {
    // Gone since the folder was read: moved or removed meanwhile.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function notFound(key: string): StoredFileNotFoundError {
  return new StoredFileNotFoundError(`no stored file "${key}"`);
}

async function writeBuffer(file: string, body: Buffer): Promise<number> {
  await fsp.writeFile(file, body, { flush: true });
  return body.length;
}

async function writeStream(file: string, body: Readable): Promise<number> {
  const out = createWriteStream(file, { flush: true });
  await pipeline(body, out);
  return out.bytesWritten;
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    await fsp.writeFile(temp, text, { flush: true });
    await fsp.rename(temp, file);
  } catch (error) {
    await fsp.rm(temp, { force: true });
    throw error;
  }
}

/** A file written before its type was recorded (or by hand) reads as bytes of no known type. */
async function readContentType(meta: string): Promise<string> {
  try {
    const parsed = JSON.parse(await fsp.readFile(meta, 'utf8')) as { contentType?: unknown };
    return typeof parsed.contentType === 'string' && parsed.contentType ? parsed.contentType : UNKNOWN_TYPE;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return UNKNOWN_TYPE;
    throw error;
  }
}

async function unlinkIfThere(file: string): Promise<void> {
  try {
    await fsp.unlink(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A folder where a key points (the key was only ever a prefix) is no stored file either.
    if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR') throw error;
  }
}
