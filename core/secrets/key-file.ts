import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KEY_BYTES } from './keyring';

export const KEY_FILE_NAME = 'secrets.key';

/**
 * The key of a single-machine installation (embedded database): generated once into
 * DATA_DIR/secrets.key, readable by the owner only, and read back on every later start.
 * It holds the key in the same form SECRETS_KEY takes (standard base64), so an operator
 * moving to SECRETS_KEY can copy it over as is.
 *
 * The file is written under a temporary name and linked into place, which either
 * creates it whole or fails because it exists: a server and a CLI starting together on
 * a fresh DATA_DIR agree on one key, and neither can read a half-written file.
 * (readOrCreateSecret in core/data does not guarantee that, and writes base64url.)
 */
export function readOrCreateKeyFile(dataDir: string): { file: string; text: string; created: boolean } {
  const dir = path.resolve(dataDir);
  const file = path.join(dir, KEY_FILE_NAME);
  if (fs.existsSync(file)) return { file, text: fs.readFileSync(file, 'utf8'), created: false };

  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = path.join(dir, `.${KEY_FILE_NAME}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`);
  const text = crypto.randomBytes(KEY_BYTES).toString('base64') + '\n';
  fs.writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(temporary, file);
    return { file, text, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { file, text: fs.readFileSync(file, 'utf8'), created: false };
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}
