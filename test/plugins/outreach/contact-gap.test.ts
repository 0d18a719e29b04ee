import { startTestKernel, type TestKernel } from '../../../core/testing';
import type { TaskJson } from '../../../plugins/outreach';
import { tryLockContactUnderRule } from '../../../plugins/outreach/tasks/contact-gap';
import {
  KERNEL_PLUGINS,
  createAgent,
  createContact,
  createTask,
  eventually,
  inMs,
  insertRule,
  probeCalls,
  readTask,
  sql,
  taskProbe,
  untilStatus,
  type Json,
} from './task-test-helpers';

let kit: TestKernel;
let agent: string;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [...KERNEL_PLUGINS, taskProbe] });
  agent = await createAgent(kit.api);
});
afterAll(() => kit?.stop());

const MINUTE = 60_000;
const GAP_MINUTES = 30;
const callsOf = (uuid: string) => probeCalls.filter((call) => call.uuid === uuid);
/** A rule open every day, all day, with this minimum gap. */
const gapRule = (minutes = GAP_MINUTES) => insertRule(kit, kit.tenant.uuid, { min_gap_minutes: minutes });
/** A make_call task (run by the probe executor) for the contact under the rule, due at once unless `extra` says otherwise. */
const taskFor = (contactUuid: string, ruleUuid: string, extra: Json = {}) =>
  createTask(kit.api, { type: 'make_call', agent_uuid: agent, contact_uuid: contactUuid, rule_uuid: ruleUuid, ...extra });
/** Once the runner has looked at the task: it ran, or it was held (its next attempt moved). */
const lookedAt = (task: TaskJson) =>
  eventually(async () => {
    const current = await readTask(kit.api, task.uuid);
    return (current.status === 'completed' || current.next_attempt_at !== task.next_attempt_at) && current;
  });

describe('a rule’s minimum gap across a contact’s tasks', () => {
  it('a second task of the contact under the rule, due right after the first ran, waits for the gap from the first’s start', async () => {
    const contact = await createContact(kit.api);
    const rule = await gapRule();
    const first = await taskFor(contact.uuid, rule);
    expect(first.last_attempt_at).toBeNull();
    const ran = await untilStatus(kit.api, first.uuid, ['completed']);
    // The start of its only attempt.
    expect(ran.last_attempt_at).toBe(ran.started_at);

    const second = await taskFor(contact.uuid, rule, { title: 'Another task, same contact and rule' });
    const held = await lookedAt(second);
    const gapEnds = new Date(Date.parse(ran.last_attempt_at!) + GAP_MINUTES * MINUTE).toISOString();
    expect(held).toMatchObject({ status: 'scheduled', attempts: 0, last_attempt_at: null, next_attempt_at: gapEnds });
    expect(callsOf(second.uuid)).toEqual([]);
    // Its due message waits for the end of the gap. The message just handled leaves the outbox a moment after its
    // handler committed (the relay deletes handled rows in batches), so on a busy machine it may still be seen.
    const dueAts = async () =>
      (await sql(kit, `select due_at from bus_outbox where topic = 'outreach.task-due' and payload->>'task_uuid' = ?`, [second.uuid])).map((row) => new Date(row.due_at).toISOString());
    await eventually(async () => (await dueAts()).length === 1, 15_000, 'one due message left');
    expect(await dueAts()).toEqual([gapEnds]);
    await kit.api.post(`/api/v1/tasks/${second.uuid}/cancel`).expect(200);
  });

  it('a task of the contact under another rule, or of another contact under the rule, is not held', async () => {
    const contact = await createContact(kit.api);
    const rule = await gapRule();
    await untilStatus(kit.api, (await taskFor(contact.uuid, rule)).uuid, ['completed']);

    const otherRule = await taskFor(contact.uuid, await gapRule());
    const otherContact = await taskFor((await createContact(kit.api)).uuid, rule);
    for (const task of [otherRule, otherContact]) expect(await untilStatus(kit.api, task.uuid, ['completed'])).toMatchObject({ attempts: 1 });
  });

  it('a gap of 0 holds nothing', async () => {
    const contact = await createContact(kit.api);
    const rule = await gapRule(0);
    await untilStatus(kit.api, (await taskFor(contact.uuid, rule)).uuid, ['completed']);
    const next = await taskFor(contact.uuid, rule);
    expect(await untilStatus(kit.api, next.uuid, ['completed'])).toMatchObject({ attempts: 1 });
  });

  it('while an attempt on the contact under the rule is being made, a task due then waits the gap from that moment', async () => {
    const contact = await createContact(kit.api);
    const rule = await gapRule();
    // This transaction plays a worker in the middle of an attempt on the contact: it holds the lock the runner tries.
    await kit.kernel.orm.em.fork().transactional(async (em) => {
      expect((await tryLockContactUnderRule(em as never, contact.uuid, rule)).locked).toBe(true);
      const before = Date.now();
      const task = await taskFor(contact.uuid, rule);
      const held = await lookedAt(task);
      const after = Date.now();
      // No attempt of the contact was recorded yet: only the lock can have held it.
      expect(held).toMatchObject({ status: 'scheduled', attempts: 0 });
      expect(Date.parse(held.next_attempt_at!)).toBeGreaterThanOrEqual(before + GAP_MINUTES * MINUTE);
      expect(Date.parse(held.next_attempt_at!)).toBeLessThanOrEqual(after + GAP_MINUTES * MINUTE);
      expect(callsOf(task.uuid)).toEqual([]);
      await kit.api.post(`/api/v1/tasks/${task.uuid}/cancel`).expect(200);
    });
  });

  it('two tasks of the contact under the rule due at the same instant: one runs, the other waits the gap from its start', async () => {
    const contact = await createContact(kit.api);
    const rule = await gapRule();
    const scheduledAt = inMs(1500);
    // The executor takes a while, so the second claim comes while the first attempt is still open (in whichever worker).
    const tasks = [
      await taskFor(contact.uuid, rule, { scheduled_at: scheduledAt, metadata: { probe: { sleep_ms: 500 } } }),
      await taskFor(contact.uuid, rule, { scheduled_at: scheduledAt, metadata: { probe: { sleep_ms: 500 } } }),
    ];
    const seen = await Promise.all(tasks.map(lookedAt));
    const ran = seen.filter((task) => task.status === 'completed');
    const held = seen.filter((task) => task.status !== 'completed');
    expect([ran.length, held.length]).toEqual([1, 1]);
    expect(held[0]).toMatchObject({ status: 'scheduled', attempts: 0 });
    expect(Date.parse(held[0].next_attempt_at!)).toBeGreaterThanOrEqual(Date.parse(ran[0].last_attempt_at!) + GAP_MINUTES * MINUTE);
    expect(callsOf(held[0].uuid)).toEqual([]);
    await kit.api.post(`/api/v1/tasks/${held[0].uuid}/cancel`).expect(200);
  });
});
