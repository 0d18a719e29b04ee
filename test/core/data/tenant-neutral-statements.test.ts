import path from 'node:path';
import { ROOT_DIR } from '../../../core/kernel/kernel';
import { installedPluginDirs } from '../../../core/plugin/plugin-source';
import { runInContext } from '../../../core/context/request-context';
import { boundQuery } from '../../../core/data/bound-query';
import { preparedStatement, tenantNeutralStatements } from '../../../core/data/prepared-statements';
import { tenantTables, TENANT_SETTING } from '../../../core/data/row-level-security';
import { startTestKernel, type TestKernel } from '../../../core/testing';

// Every installed plugin, so that each plugin's statements are declared and each tenant table known.
const pluginDirs = [...installedPluginDirs(ROOT_DIR, []), ...installedPluginDirs(path.join(ROOT_DIR, 'none'), [path.join(ROOT_DIR, 'examples/plugins')])];

/** The ORM's own copy of `pg`, whose clients the pool makes. */
const pg = require(require.resolve('pg', { paths: [path.dirname(require.resolve('@mikro-orm/postgresql'))] }));

let kit: TestKernel;
const sent: string[] = [];
const originalQuery = pg.Client.prototype.query;

beforeAll(async () => {
  // Before the boot: a pooled client keeps the query method it had when it connected.
  pg.Client.prototype.query = function (this: unknown, ...args: any[]) {
    const config = args[0];
    sent.push(typeof config === 'string' ? config : String(config?.text ?? ''));
    return originalQuery.apply(this, args);
  };
  // One connection: every statement below shares it, so a setting left by one is seen by the next.
  kit = await startTestKernel({ plugins: pluginDirs, config: { databasePoolMax: 1 } });
}, 120_000);

afterAll(async () => {
  pg.Client.prototype.query = originalQuery;
  await kit?.stop();
});

/** Table names a statement reads or writes (after from, join, into, update, delete from). */
function tablesOf(text: string): string[] {
  return [...text.matchAll(/\b(?:from|join|into|update)\s+"?([a-z_][a-z0-9_]*)"?/gi)].map((match) => match[1]!.toLowerCase());
}

describe('tenant-neutral statements', () => {
  it('name only tables without a tenant policy', () => {
    const policed = new Set(tenantTables(kit.kernel.orm).map((table) => table.table));
    const statements = tenantNeutralStatements();
    expect(statements.length).toBeGreaterThan(0);
    const offending = statements.filter((text) => tablesOf(text).some((table) => policed.has(table)));
    expect(offending).toEqual([]);
    // The check itself finds a policed table when one is named.
    expect(tablesOf('select 1 from "example_notes" n join agents a on true').filter((table) => policed.has(table))).toEqual(['example_notes', 'agents']);
  });

  it('outside a transaction, run under the tenant the connection has, where any other statement of cross-tenant work sets none first', async () => {
    const neutral = preparedStatement('test.neutral-outbox-count', 'select count(*) from bus_outbox where topic = $1', { tenantNeutral: true });
    const other = preparedStatement('test.other-outbox-count', 'select count(*) from bus_outbox where topic = $2 or topic = $1', {});
    const em = () => kit.kernel.orm.em.fork();
    // A tenant's read leaves the connection set to that tenant.
    await runInContext({ tenant: kit.tenant, em: em() }, () => boundQuery(em(), 'select 1 from example_notes limit 1'));
    const settings = () => sent.filter((text) => text.includes(`set_config('${TENANT_SETTING}'`));

    const before = settings().length;
    await runInContext({ em: em() }, () => boundQuery(em(), neutral, ['none']));
    expect(settings().length).toBe(before);

    await runInContext({ em: em() }, () => boundQuery(em(), other, ['none', 'nothing']));
    expect(settings().slice(before)).toEqual([`select set_config('${TENANT_SETTING}', '', false)`]);
  });
});
