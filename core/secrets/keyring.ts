import crypto from 'node:crypto';
import { inspect } from 'node:util';
import { BootError } from '../errors/boot-error';

/** AES-256 takes a 32-byte key. */
export const KEY_BYTES = 32;

/** Key ids appear inside ciphertexts (`sb1:<id>:...`), so they cannot contain ":". */
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
/** Standard or URL-safe base64, so both `openssl rand -base64 32` and base64url keys work. */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export interface KeyringEntry {
  id: string;
  material: Buffer;
}

/**
 * The configured encryption keys, oldest first; the last one encrypts, every one
 * decrypts. Key material sits in a private field and the keyring prints as its key
 * ids only, so logging a service that holds it cannot leak a key.
 */
export class Keyring {
  readonly #keys: ReadonlyMap<string, Buffer>;
  /** The same keys as KeyObjects: a cipher given a Buffer makes one on every call, a cost paid on each secret read. */
  readonly #keyObjects: ReadonlyMap<string, crypto.KeyObject>;
  /** Key ids, oldest first. */
  readonly ids: readonly string[];

  constructor(entries: readonly KeyringEntry[]) {
    if (entries.length === 0) throw new Error('a keyring needs at least one key');
    const keys = new Map<string, Buffer>();
    for (const { id, material } of entries) {
      if (!KEY_ID.test(id)) throw new Error(`key id "${id}" must be 1-32 letters, digits, "_" or "-"`);
      if (material.length !== KEY_BYTES) throw new Error(`key "${id}" is ${material.length} bytes; AES-256 needs ${KEY_BYTES}`);
      if (keys.has(id)) throw new Error(`key id "${id}" is listed twice`);
      keys.set(id, Buffer.from(material));
    }
    this.#keys = keys;
    this.#keyObjects = new Map([...keys].map(([id, material]) => [id, crypto.createSecretKey(material)]));
    this.ids = Object.freeze([...keys.keys()]);
  }

  /** The id of the key new ciphertexts are encrypted under. */
  get newestId(): string {
    return this.ids[this.ids.length - 1]!;
  }

  /** The key with this id, or undefined when it is not configured. */
  key(id: string): crypto.KeyObject | undefined {
    return this.#keyObjects.get(id);
  }

  /**
   * Whether every key of `other` is in this keyring under the same id: ciphertexts
   * name their key by id, so the same key under another id would not open them.
   */
  covers(other: Keyring): boolean {
    return [...other.#keys].every(([id, theirs]) => {
      const mine = this.#keys.get(id);
      return mine !== undefined && crypto.timingSafeEqual(mine, theirs);
    });
  }

  toJSON(): { keyIds: readonly string[] } {
    return { keyIds: this.ids };
  }

  [inspect.custom](): string {
    return `Keyring(${this.ids.join(', ')})`;
  }
}

/**
 * A key's id when the operator gives none: a short hash of the key. It is the same on
 * every machine and every restart without any bookkeeping, so adding a second key to
 * SECRETS_KEY never changes the id of the first. Eight hex digits of SHA-256 say
 * nothing useful about a random 256-bit key.
 */
export function deriveKeyId(material: Buffer): string {
  return 'k' + crypto.createHash('sha256').update('switchboard secrets key id\0').update(material).digest('hex').slice(0, 8);
}

/**
 * Parses SECRETS_KEY: one key, or several separated by commas, oldest first and the
 * newest (the one that encrypts) last. Each is base64 of 32 bytes, optionally prefixed
 * by an id (`2025a:BASE64`); without one the id is derived from the key. Ciphertexts
 * name their key by id, so a key keeps its id (given or derived) for as long as any
 * value is encrypted under it. `source` names
 * where the text came from in error messages, which never repeat the text itself.
 */
export function parseKeyring(text: string, source: string): Keyring {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw new BootError(`${source} holds no key; generate one with \`openssl rand -base64 32\``);

  const entries = items.map((item, index): KeyringEntry => {
    const where = items.length === 1 ? source : `${source} (key ${index + 1} of ${items.length})`;
    const colon = item.indexOf(':');
    const id = colon >= 0 ? item.slice(0, colon) : undefined;
    const encoded = colon >= 0 ? item.slice(colon + 1) : item;
    if (id !== undefined && !KEY_ID.test(id)) {
      throw new BootError(`${where}: the key id before ":" must be 1-32 letters, digits, "_" or "-"`);
    }
    // `openssl rand -hex 32` is an easy slip, and as base64 it decodes to a puzzling 48 bytes.
    if (/^[0-9a-f]{64}$/i.test(encoded)) {
      throw new BootError(`${where} looks like hex; it takes base64. Generate a key with \`openssl rand -base64 32\``);
    }
    if (!BASE64.test(encoded)) {
      throw new BootError(`${where} is not base64; generate a key with \`openssl rand -base64 32\``);
    }
    const material = Buffer.from(encoded, 'base64');
    if (material.length !== KEY_BYTES) {
      throw new BootError(
        `${where} is ${material.length} bytes after base64 decoding; it must be ${KEY_BYTES}. Generate one with \`openssl rand -base64 32\``,
      );
    }
    return { id: id ?? deriveKeyId(material), material };
  });

  for (let i = 0; i < entries.length; i++) {
    for (let j = 0; j < i; j++) {
      if (entries[i]!.id === entries[j]!.id) throw new BootError(`${source}: keys ${j + 1} and ${i + 1} have the same id "${entries[i]!.id}"`);
      if (entries[i]!.material.equals(entries[j]!.material)) throw new BootError(`${source}: keys ${j + 1} and ${i + 1} are the same key`);
    }
  }
  return new Keyring(entries);
}
