import type { ConvictSchema } from '../config/convict-schema';
import { parseKeyring } from './keyring';

/**
 * The secrets settings, a fragment of the kernel's config schema. The value is checked
 * at config load (so `switchboard config` reports a bad key too); convict prints the
 * check's message but, the setting being sensitive, never the value.
 */
export const secretsConfigSchema = {
  secretsKey: {
    doc:
      'Keys encrypting stored secrets: base64 of 32 bytes (`openssl rand -base64 32`), or several separated by commas, ' +
      'oldest first, the last one encrypting; each may be prefixed by an id (`id:BASE64`). Required with DATABASE_URL; ' +
      'empty with the embedded database uses a key generated once into DATA_DIR/secrets.key',
    format: (value: unknown) => {
      if (typeof value !== 'string') throw new Error('must be a string');
      if (value.trim() !== '') parseKeyring(value, 'SECRETS_KEY');
    },
    default: '',
    env: 'SECRETS_KEY',
    sensitive: true,
  },
} satisfies ConvictSchema;

export interface SecretsConfig {
  secretsKey: string;
}
