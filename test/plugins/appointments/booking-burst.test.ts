import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { APPOINTMENT_PLUGINS, dayFromNow, madrid, makeSchedule, makeType } from './appointments-kit';

/**
 * A burst of bookings of one schedule, far more than the pool holds: each takes the
 * schedule's row lock, so they run one at a time. Waiting for that turn must not hold a
 * pool connection (plugins/appointments/booking/schedule-queue.ts), or the waiters fill
 * the pool and everything else waits past its acquire timeout (5 s): 503.
 */
const POOL = 4;
const BURST = 60;
/** Longer than the pool's acquire timeout (core/data/orm.ts, 5 s). */
const HOLD_MS = 5_500;

let kit: TestKernel;
let outside: Client;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: APPOINTMENT_PLUGINS, config: { databasePoolMax: POOL } });
  outside = new Client({ connectionString: kit.kernel.config.core.databaseUrl });
  await outside.connect();
});
afterAll(async () => {
  await outside?.end();
  await kit?.stop();
});

/** `count` distinct free half-hour slots of 09:00-17:00 (16 a day), from ten days ahead on. */
function freeSlots(count: number): string[] {
  const starts: string[] = [];
  for (let index = 0; index < count; index++) {
    const minutes = 9 * 60 + (index % 16) * 30;
    starts.push(madrid(dayFromNow(10 + Math.floor(index / 16)), `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`));
  }
  return starts;
}

/** Connections of the kernel's database waiting for a lock, as PostgreSQL sees them. */
async function lockWaiters(): Promise<number> {
  const { rows } = await outside.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`);
  return rows[0].n;
}

it(`${BURST} bookings of one schedule at once on a pool of ${POOL}, its lock held ${HOLD_MS} ms elsewhere: all 201, none 503, the pool free meanwhile`, async () => {
  const schedule = await makeSchedule(kit.api);
  const type = await makeType(kit.api, schedule, { duration_minutes: 30 });
  const starts = freeSlots(BURST);

  // Another process's booking of the schedule holds its row lock, as `lockSchedule` takes it.
  await outside.query('begin');
  await outside.query('select 1 from schedules where uuid = $1 for update', [schedule]);
  const heldAt = Date.now();
  let burst: Promise<Array<{ status: number; body: any }>>;
  let waiters: number[];
  let read: { status: number; ms: number };
  try {
    burst = Promise.all(starts.map((startsAt) => kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: startsAt }).then((res) => res)));
    // Only the first in the process's queue waits on the lock, with one connection.
    const first = Date.now();
    while ((await lockWaiters()) < 1) {
      if (Date.now() - first > 10_000) throw new Error('no booking reached the schedule’s lock');
      await sleep(50);
    }
    waiters = [];
    for (let sample = 0; sample < 8; sample++) {
      await sleep(100);
      waiters.push(await lockWaiters());
    }
    // The rest of the pool still serves: a read answers at once, not after the acquire timeout.
    const asked = Date.now();
    const res = await kit.api.get(`/api/v1/schedules/${schedule}`);
    read = { status: res.status, ms: Date.now() - asked };
    await sleep(Math.max(0, HOLD_MS - (Date.now() - heldAt)));
  } finally {
    await outside.query('commit');
  }
  const results = await burst;

  // One object, so that a failure shows all of it: how many waited on the lock, the read, every refused booking.
  expect({
    lockWaiters: Math.max(...waiters),
    read: { status: read.status, fast: read.ms < 2_000 },
    refused: results.filter((res) => res.status !== 201).map((res) => `${res.status} ${res.body?.message}`),
  }).toEqual({ lockWaiters: 1, read: { status: 200, fast: true }, refused: [] });
  const listed = (await kit.api.get(`/api/v1/appointments?schedule_uuid=${schedule}&per_page=100`).expect(200)).body.data;
  expect(listed.pagination.total).toBe(BURST);
  expect(listed.items.map((item: any) => item.starts_at).sort()).toEqual([...starts].sort());
}, 90_000);

it(`${BURST} bookings of one schedule at once on a pool of ${POOL}, half of them of one slot: one 201 per slot, the rest 409, none 503`, async () => {
  const schedule = await makeSchedule(kit.api);
  const type = await makeType(kit.api, schedule, { duration_minutes: 30 });
  const starts = freeSlots(BURST / 2);
  // Every slot asked for twice, the pairs far apart in the burst.
  const asked = [...starts, ...starts];
  const results = await Promise.all(asked.map((startsAt) => kit.api.post('/api/v1/appointments').send({ availability_type_uuid: type, starts_at: startsAt }).then((res) => res)));
  expect(results.filter((res) => res.status !== 201 && res.status !== 409).map((res) => [res.status, res.body?.message])).toEqual([]);
  const created = results.filter((res) => res.status === 201).map((res) => res.body.data.starts_at);
  expect(created.sort()).toEqual([...starts].sort());
  for (const res of results.filter((res) => res.status === 409)) expect(res.body.message).toContain('taken');
}, 90_000);
