import crypto from 'node:crypto';
import path from 'node:path';
import { coreServices, definePlugin, defineRoute, Reply, Type, ValidationError } from '../../../core';
import { ROOT_DIR } from '../../../core/kernel/kernel';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { FuzzRunner, type FuzzCase } from './fuzz-runner';
import type { FuzzWorld, Operation } from './fuzz-world';

/**
 * The fuzzer's checks must be able to fail: a deliberately faulty plugin whose routes
 * write a row and then refuse, show a stack trace, or crash.
 */
const faulty = definePlugin({
  id: 'faulty',
  dependsOn: ['notes'],
  deps: { http: coreServices.http, orm: coreServices.orm },
  init({ http, orm }) {
    const route = (p: string, handler: (context: { tenant: { uuid: string } }) => unknown) =>
      http.route(defineRoute({ method: 'POST', path: `/api/v1/faulty/${p}`, summary: p, body: Type.Unknown(), handler }));
    // Writes outside the request's transaction, then refuses: the write survives the 422.
    route('sneaky', async ({ tenant }) => {
      await orm.em
        .fork()
        .getConnection()
        .execute(`insert into example_notes (uuid, tenant_uuid, created_at, updated_at, title, extras) values (?, ?, now(), now(), 'sneaky', '{}')`, [crypto.randomUUID(), tenant.uuid]);
      throw ValidationError.field('title', 'is refused after all');
    });
    route('honest', () => {
      throw ValidationError.field('title', 'is refused');
    });
    route('stack', () => new Reply(400, { message: 'Error: boom', detail: 'Error: boom\n    at handler (/srv/core/http/route.ts:12:34)' }));
    route('crash', () => {
      throw new Error('boom');
    });
  },
});

let kit: TestKernel;
let runner: FuzzRunner;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [path.join(ROOT_DIR, 'examples/plugins/notes'), faulty] });
  runner = await FuzzRunner.start({ kit } as FuzzWorld);
});
afterAll(async () => {
  runner?.close();
  await kit?.stop();
});

function fuzzCase(name: string): FuzzCase {
  const op = { name: `POST /api/v1/faulty/${name}` } as Operation;
  const host = `${kit.tenant.slug}.${kit.kernel.config.core.baseDomain}`;
  return { op, label: name, request: { method: 'POST', path: `/api/v1/faulty/${name}`, host, token: kit.token, body: '{}' } };
}

it('reports a refused request that wrote a row, a stack trace and a 500, and nothing for an honest refusal', async () => {
  for (const name of ['honest', 'sneaky', 'stack', 'crash']) await runner.run(fuzzCase(name));
  expect(await runner.alive('the faulty routes')).toBe(true);
  expect(runner.findings.map(({ label, problem }) => ({ label, problem }))).toEqual([
    { label: 'sneaky', problem: expect.stringMatching(/^refused with 422 but wrote rows: example_notes 1 row write/) },
    { label: 'stack', problem: 'the answer shows a stack trace or an internal error' },
    { label: 'crash', problem: 'answered 500' },
  ]);
});
