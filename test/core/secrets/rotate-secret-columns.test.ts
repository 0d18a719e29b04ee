import crypto from 'node:crypto';
import { Pool } from 'pg';
import { createTestDatabase } from '../../../core/testing';
import { parseKeyring } from '../../../core/secrets/keyring';
import { defineSecretColumn } from '../../../core/secrets/secret-column';
import { SecretDecryptionError } from '../../../core/secrets/secret-decryption-error';
import { Secrets } from '../../../core/secrets/secrets';

const newKey = () => crypto.randomBytes(32).toString('base64');
const secretsWith = (...keys: string[]) => new Secrets(parseKeyring(keys.join(','), 'SECRETS_KEY'));
const vaultSecret = defineSecretColumn({ table: 'vault_items', column: 'secret', entity: 'vault_item', field: 'secret' });

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
beforeAll(async () => {
  database = await createTestDatabase();
  pool = new Pool({ connectionString: database.url, max: 3 });
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});
beforeEach(async () => {
  await pool.query('drop table if exists vault_items');
  await pool.query('create table vault_items (uuid uuid primary key, tenant_uuid uuid not null, label text not null, secret text null)');
});

async function insert(tenantUuid: string, label: string, secret: string | null): Promise<string> {
  const uuid = crypto.randomUUID();
  await pool.query('insert into vault_items (uuid, tenant_uuid, label, secret) values ($1, $2, $3, $4)', [uuid, tenantUuid, label, secret]);
  return uuid;
}

async function rows(): Promise<Array<{ uuid: string; tenant_uuid: string; label: string; secret: string | null }>> {
  return (await pool.query('select uuid::text, tenant_uuid::text, label, secret from vault_items order by label')).rows;
}

describe('rotateAll: re-encrypting every declared column under the newest key', () => {
  it('rotates the rows of two tenants in batches; each still opens for its own tenant only', async () => {
    const [a, b] = [newKey(), newKey()];
    const underA = secretsWith(a);
    const onlyB = secretsWith(b);
    const tenants = [crypto.randomUUID(), crypto.randomUUID()] as const;
    for (const [t, tenant] of tenants.entries()) {
      for (let i = 0; i < 7; i++) await insert(tenant, `t${t}-${i}`, underA.encrypt(`password ${t}-${i}`, vaultSecret.context(tenant)));
    }
    await insert(tenants[0], 'no-secret', null);
    const alreadyNew = onlyB.encrypt('already under b', vaultSecret.context(tenants[1]));
    await insert(tenants[1], 'already-new', alreadyNew);
    // A value copied from tenant 0's row into tenant 1's row: must not be "repaired" by rotation.
    const swapped = await insert(tenants[1], 'swapped', underA.encrypt('tenant 0 secret', vaultSecret.context(tenants[0])));
    const garbage = await insert(tenants[0], 'garbage', 'not encrypted');

    const rotating = secretsWith(a, b);
    rotating.declareColumn(vaultSecret);
    const report = await rotating.rotateAll(pool, { batchSize: 4 });

    expect(report).toEqual({
      keyId: onlyB.keyIds[0],
      rotated: 14,
      failed: 2,
      columns: [
        {
          table: 'vault_items',
          column: 'secret',
          rotated: 14,
          failed: 2,
          failures: expect.arrayContaining([
            { id: swapped, reason: 'authentication-failed' },
            { id: garbage, reason: 'malformed' },
          ]),
        },
      ],
    });

    const after = await rows();
    const byLabel = new Map(after.map((row) => [row.label, row]));
    for (const [t, tenant] of tenants.entries()) {
      const other = tenants[1 - t]!;
      for (let i = 0; i < 7; i++) {
        const row = byLabel.get(`t${t}-${i}`)!;
        expect(row.tenant_uuid).toBe(tenant);
        expect(row.secret!.startsWith(`sb1:${onlyB.keyIds[0]}:`)).toBe(true);
        expect(onlyB.decrypt(row.secret!, vaultSecret.context(tenant))).toBe(`password ${t}-${i}`);
        expect(() => onlyB.decrypt(row.secret!, vaultSecret.context(other))).toThrow(SecretDecryptionError);
      }
    }
    expect(byLabel.get('no-secret')!.secret).toBeNull();
    expect(byLabel.get('already-new')!.secret).toBe(alreadyNew);
    expect(byLabel.get('garbage')!.secret).toBe('not encrypted');
    expect(rotating.needsRotation(byLabel.get('swapped')!.secret!)).toBe(true);

    // Nothing is left to do but the two bad rows, so a second run changes nothing.
    const again = await rotating.rotateAll(pool, { batchSize: 4 });
    expect(again).toMatchObject({ rotated: 0, failed: 2 });
    expect(await rows()).toEqual(after);
  });

  it.each([1, 5, 10, 11, 12])('rotates all of 11 rows with batches of %i', async (batchSize) => {
    const [a, b] = [newKey(), newKey()];
    const tenant = crypto.randomUUID();
    for (let i = 0; i < 11; i++) await insert(tenant, `r${i}`, secretsWith(a).encrypt(`v${i}`, vaultSecret.context(tenant)));
    const rotating = secretsWith(a, b);
    rotating.declareColumn(vaultSecret);
    expect(await rotating.rotateAll(pool, { batchSize })).toMatchObject({ rotated: 11, failed: 0 });
    const after = await rows();
    expect(after.map((row) => rotating.needsRotation(row.secret!))).toEqual(Array(11).fill(false));
    expect(after.map((row) => secretsWith(b).decrypt(row.secret!, vaultSecret.context(tenant))).sort()).toEqual(
      Array.from({ length: 11 }, (_, i) => `v${i}`).sort(),
    );
  });

  it('stops with the declaration named when its table or column does not exist', async () => {
    const rotating = secretsWith(newKey());
    rotating.declareColumn(defineSecretColumn({ table: 'no_such_table', column: 'secret', entity: 'nothing', field: 'secret' }));
    await expect(rotating.rotateAll(pool)).rejects.toThrow('secret column no_such_table.secret: table "no_such_table" does not exist');

    const typo = secretsWith(newKey());
    typo.declareColumn(defineSecretColumn({ table: 'vault_items', column: 'secrett', entity: 'vault_item', field: 'secret' }));
    await expect(typo.rotateAll(pool)).rejects.toThrow('table "vault_items" has no column "secrett"');

    const wrongType = secretsWith(newKey());
    wrongType.declareColumn(defineSecretColumn({ table: 'vault_items', column: 'tenant_uuid', entity: 'vault_item', field: 'secret' }));
    await expect(wrongType.rotateAll(pool)).rejects.toThrow('the column is uuid; encrypted secrets are stored as text');
  });
});

describe('secret column declarations', () => {
  it('default to the uuid and tenant_uuid columns of TenantScopedEntity and give the sealing context', () => {
    const tenant = crypto.randomUUID();
    expect(vaultSecret).toMatchObject({ idColumn: 'uuid', tenantColumn: 'tenant_uuid' });
    expect(vaultSecret.context(tenant)).toEqual({ tenantUuid: tenant, entity: 'vault_item', field: 'secret' });
  });

  it('refuse identifiers that are not plain SQL names and entity/field names that could be ambiguous', () => {
    expect(() => defineSecretColumn({ table: 'x"; drop table y; --', column: 'c', entity: 'e', field: 'f' })).toThrow(/table .* lower-case SQL identifier/);
    expect(() => defineSecretColumn({ table: 't', column: 'c', idColumn: 'Id', entity: 'e', field: 'f' })).toThrow(/idColumn/);
    expect(() => defineSecretColumn({ table: 't', column: 'c', entity: 'a|b', field: 'f' })).toThrow(/entity must be a name/);
  });

  it('refuse a column declared twice, or two columns sealing under one entity/field', () => {
    const secrets = secretsWith(newKey());
    secrets.declareColumn(vaultSecret);
    expect(() => secrets.declareColumn(vaultSecret)).toThrow('secret column vault_items.secret is declared twice');
    expect(() => secrets.declareColumn(defineSecretColumn({ table: 'other', column: 'secret', entity: 'vault_item', field: 'secret' }))).toThrow(
      /both use entity\/field vault_item\.secret/,
    );
    expect(secrets.columns()).toEqual([vaultSecret]);
  });
});
