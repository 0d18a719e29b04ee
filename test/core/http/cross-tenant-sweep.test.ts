import fs from 'node:fs';
import path from 'node:path';
import { coreServices, definePlugin, defineRoute, newUuid, ResourceId, Type, ValidationError } from '../../../core';
import { installedPluginDirs } from '../../../core/plugin/plugin-source';
import { ROOT_DIR } from '../../../core/kernel/kernel';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { sweepCrossTenant, type BodyFixtures, type ResourceFixtures } from '../../../core/testing/cross-tenant-sweep';
import { fixtureApps } from '../../plugins/flows/catalog/fixture-apps';

// Every installed plugin plus the examples: the sweep grows with each plugin.
const pluginDirs = [...installedPluginDirs(ROOT_DIR, []), ...installedPluginDirs(path.join(ROOT_DIR, 'none'), [path.join(ROOT_DIR, 'examples/plugins')])];

/**
 * Each plugin's `testing.ts` exports the fixtures that make its resources, and may export
 * `bodies` (routes whose body the sweep cannot guess) and `unswept` (members no body can sweep, with why).
 */
function collect(name: 'fixtures' | 'bodies' | 'unswept'): Record<string, any> {
  const all: Record<string, any> = {};
  for (const dir of pluginDirs) {
    const file = path.join(dir, 'testing.ts');
    if (fs.existsSync(file)) Object.assign(all, require(file)[name]);
  }
  return all;
}
const collectFixtures = (): ResourceFixtures => collect('fixtures');
const collectBodies = (): BodyFixtures => collect('bodies');
const collectUnswept = (): Record<string, string> => collect('unswept');

describe('cross-tenant sweep', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    // No built-in flow app is a `connect` app: the fixture apps give connections something to belong to.
    kit = await startTestKernel({ plugins: [...pluginDirs, fixtureApps] });
  });
  afterAll(() => kit?.stop());

  it("every route that takes an id answers 404 to another tenant's ids, and every member naming a resource refuses another tenant's", async () => {
    const results = await sweepCrossTenant(kit, collectFixtures(), { bodies: collectBodies(), unswept: collectUnswept() });
    expect(results.filter((r) => !r.member).length).toBeGreaterThan(0);
    expect(results.filter((r) => r.member && !r.skipped).length).toBeGreaterThan(0);
    // What the sweep could not reach, listed so that it is seen (and shrinks), never dropped silently.
    const skipped = results.filter((r) => r.skipped).map((r) => `${r.route} ${r.member}: ${r.skipped}`);
    if (skipped.length > 0) console.info(`cross-tenant sweep: ${skipped.length} member(s) not swept\n${skipped.join('\n')}`);
    expect(results.filter((r) => r.problem)).toEqual([]);
    // The sweep grows with every plugin's routes: 17 s alone on a quiet machine, over 30 s beside another suite in CI.
  }, 180_000);
});

describe('the sweep itself', () => {
  // A deliberately leaky plugin: it looks records up with the tenant filter off.
  const leaky = definePlugin({
    id: 'leaky',
    dependsOn: ['notes'],
    deps: { http: coreServices.http, orm: coreServices.orm },
    init({ http }) {
      http.route(
        defineRoute({
          method: 'GET',
          path: '/api/v1/leaky/:uuid',
          summary: 'Reads any tenant’s note',
          params: Type.Object({ uuid: ResourceId('notes.note') }),
          handler: async ({ params, em }) => {
            const [row] = await em.getConnection().execute('select title from example_notes where uuid = ?', [params.uuid]);
            return { data: row ?? null };
          },
        }),
      );
      // Copies any tenant's note by the uuid in its body: a member that takes a foreign id.
      http.route(
        defineRoute({
          method: 'POST',
          path: '/api/v1/leaky-copies',
          summary: 'Copies any tenant’s note',
          body: Type.Object({ note_uuid: ResourceId('notes.note'), voice_uuid: Type.Optional(Type.String({ format: 'uuid' })) }),
          status: 201,
          handler: async ({ body, em }) => {
            const [row] = await em.getConnection().execute('select title from example_notes where uuid = ?', [body.note_uuid]);
            return { data: row ?? null };
          },
        }),
      );
      // Finds any tenant's note by a query filter: a read that shows a foreign id.
      http.route(
        defineRoute({
          method: 'GET',
          path: '/api/v1/leaky-finds',
          summary: 'Finds any tenant’s note',
          query: Type.Object({ note_uuid: Type.Optional(ResourceId('notes.note')) }),
          handler: async ({ query, em }) => ({ data: await em.getConnection().execute('select uuid, title from example_notes where uuid = ?', [query.note_uuid ?? null]) }),
        }),
      );
      // Refuses a foreign note, but only after writing one (no transaction to undo it): a refusal that still writes.
      http.route(
        defineRoute({
          method: 'POST',
          path: '/api/v1/leaky-writes',
          summary: 'Writes, then checks',
          body: Type.Object({ note_uuid: ResourceId('notes.note') }),
          status: 201,
          transactional: false,
          handler: async ({ body, em, tenant }) => {
            await em
              .getConnection()
              .execute("insert into example_notes (uuid, tenant_uuid, title, body, extras, created_at, updated_at) values (?, ?, 'copy', '', '{}', now(), now())", [newUuid(), tenant.uuid]);
            const [row] = await em.getConnection().execute('select 1 from example_notes where uuid = ? and tenant_uuid = ?', [body.note_uuid, tenant.uuid]);
            if (!row) throw ValidationError.field('note_uuid', 'is not a note of this tenant');
            return { data: null };
          },
        }),
      );
      http.route(
        defineRoute({ method: 'GET', path: '/api/v1/unlabelled/:uuid', summary: 'No kind', params: Type.Object({ uuid: Type.String() }), handler: () => ({}) }),
      );
    },
  });

  it('catches a route that leaks across tenants, one whose id names no kind, a member that takes or shows a foreign id, and a refusal that writes', async () => {
    const kit = await startTestKernel({ plugins: [path.join(ROOT_DIR, 'examples/plugins/notes'), leaky] });
    try {
      const results = await sweepCrossTenant(kit, collectFixtures());
      expect(results.filter((r) => r.problem)).toEqual([
        { route: 'GET /api/v1/leaky/:uuid', problem: expect.stringContaining("another tenant's ids answered 200") },
        { route: 'POST /api/v1/leaky-copies', member: 'note_uuid', problem: expect.stringContaining("another tenant's notes.note answered 201") },
        { route: 'GET /api/v1/leaky-finds', member: 'note_uuid', problem: expect.stringContaining("another tenant's notes.note answered 200, not an answer without it") },
        { route: 'POST /api/v1/leaky-writes', member: 'note_uuid', problem: "another tenant's notes.note was refused but 1 row(s) were written" },
        { route: 'GET /api/v1/unlabelled/:uuid', problem: expect.stringContaining('does not name its resource kind') },
      ]);
      // A member whose kind no fixture tells is listed, not dropped.
      expect(results.filter((r) => r.skipped)).toEqual([{ route: 'POST /api/v1/leaky-copies', member: 'voice_uuid', skipped: expect.stringContaining('names no resource kind') }]);
    } finally {
      await kit.stop();
    }
  });
});
