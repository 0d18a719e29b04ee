import { startTestKernel, type TestKernel } from '../../../core/testing';
import type { TaskJson } from '../../../plugins/outreach';
import { KERNEL_PLUGINS, asTenant, createAgent, createContact, createTask, inMs, sleep, startWebhookServer, untilStatus } from './task-test-helpers';

/**
 * Two kernels on one database, each with its own bus relay and task runner (two
 * workers), and every due message sent twice: each task still runs once.
 */
let first: TestKernel;
let second: TestKernel;
let hooks: Awaited<ReturnType<typeof startWebhookServer>>;

beforeAll(async () => {
  // A slow receiver, so attempts overlap and both workers are busy at once.
  hooks = await startWebhookServer(() => ({ status: 200, delayMs: 150 }));
  const shared = { busPollIntervalMs: 200 };
  first = await startTestKernel({ plugins: KERNEL_PLUGINS, role: 'start', config: shared });
  second = await startTestKernel({
    plugins: KERNEL_PLUGINS,
    role: 'worker',
    tenant: 'second',
    config: { ...shared, databaseUrl: first.kernel.config.core.databaseUrl, busNamespace: first.kernel.config.core.busNamespace },
  });
}, 60_000);
afterAll(async () => {
  await second?.stop();
  await first?.stop();
  await hooks?.close();
});

it('due tasks run once with two workers, even when their due messages come twice', async () => {
  const agent = await createAgent(first.api);
  const contact = await createContact(first.api);
  const scheduledAt = inMs(3000);
  const tasks: TaskJson[] = [];
  for (let n = 0; n < 16; n++) {
    tasks.push(
      await createTask(first.api, {
        type: 'webhook',
        agent_uuid: agent,
        contact_uuid: contact.uuid,
        scheduled_at: scheduledAt,
        priority: 1 + (n % 10),
        task_data: { url: `${hooks.url}/task/${n}` },
      }),
    );
  }
  // A second due message for each task, as a redelivery or a stale timer would make.
  await asTenant(first, first, async () => {
    for (const task of tasks) await first.kernel.bus.publish('outreach.task-due', { task_uuid: task.uuid }, { at: new Date(scheduledAt) });
  });
  for (const task of tasks) expect((await untilStatus(first.api, task.uuid, ['completed', 'failed'], 30_000)).status).toBe('completed');
  // Every due message, the copies too, handled by one worker or the other (on the in-process bus a row
  // leaves the outbox once handled): a second run, if there were one, has shown.
  const uuids = tasks.map((task) => task.uuid);
  const dueLeft = async () =>
    (await first.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from bus_outbox where topic = 'outreach.task-due' and payload->>'task_uuid' in (?)`, [uuids]))[0].n as number;
  for (const deadline = Date.now() + 20_000; (await dueLeft()) > 0; await sleep(50)) {
    if (Date.now() > deadline) throw new Error(`${await dueLeft()} due message(s) still unhandled`);
  }
  for (const [n, task] of tasks.entries()) {
    expect([n, hooks.requests.filter((request) => request.url === `/task/${n}`).length]).toEqual([n, 1]);
    expect((await untilStatus(first.api, task.uuid, ['completed'])).attempts).toBe(1);
  }
});
