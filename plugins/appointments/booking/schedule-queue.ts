import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Changes to one schedule's appointments run one at a time: each takes the schedule's
 * row lock (`lockSchedule`) in its transaction. A transaction waiting on that lock holds
 * a pool connection the whole time, so a burst of bookings of one schedule, more than
 * DATABASE_POOL_MAX at once, used to fill the pool with waiters, and later requests (of
 * any schedule) waited past the pool's acquire timeout: 503.
 *
 * So within a process they queue here first, holding nothing, and a transaction opens
 * only when the process's previous one on the schedule has ended: at most one
 * connection per schedule waits on its lock. The row lock stays, for other processes.
 *
 * Keyed by the schedule's uuid, one queue per process (a module's state: every kernel of
 * a process shares it, which only orders work that the row lock would order anyway).
 * First come, first served; an entry is dropped when its last waiter is done.
 */
const tails = new Map<string, Promise<void>>();

/** Runs `work` once every earlier `inScheduleQueue` of the schedule in this process has settled. */
export async function inScheduleQueue<T>(scheduleUuid: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(scheduleUuid);
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  // The next waiter waits for this one, which waits for the previous: a chain, in order of arrival.
  const tail = previous ? previous.then(() => done) : done;
  tails.set(scheduleUuid, tail);
  try {
    if (previous) await previous;
    return await work();
  } finally {
    release();
    if (tails.get(scheduleUuid) === tail) tails.delete(scheduleUuid);
  }
}

/**
 * A transaction of its own on a fork of `em` (or of the ORM) for a change to the
 * schedule's appointments, opened once it is the schedule's turn in this process (see
 * above) and ended, committed or rolled back, before the next one's opens. Call it with
 * no transaction open: one held while queueing would hold its connection, the very
 * thing this avoids. With no schedule (the thing changed was not found) there is no
 * turn to wait for: the transaction opens at once and answers the 404 itself.
 */
export function scheduleTransaction<T>(em: { fork(): EntityManager }, scheduleUuid: string | undefined, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  const run = () => em.fork().transactional(work);
  return scheduleUuid ? inScheduleQueue(scheduleUuid, run) : run();
}

/** How many schedules have work queued or running in this process (for tests). */
export const queuedSchedules = (): number => tails.size;
