import crypto from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, ConflictError, preparedStatement } from '../../../core';

/** What a turn holds while it runs: give it back with `release` in the turn's last transaction. */
export interface HeldLease {
  conversationUuid: string;
  holder: string;
  /** Whether `release` ran in a transaction that committed; else the turn's end gives it back on its own. */
  released: boolean;
}

/** Written and deleted on every turn: prepared statements. */
const TAKE = preparedStatement(
  'runtime.lease-take',
  'insert into runtime_turn_leases (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, holder, expires_at) ' +
    "values (gen_random_uuid(), $1, now(), now(), $2, $3, now() + $4::float8 * interval '1 millisecond') " +
    'on conflict (conversation_uuid) do update set holder = excluded.holder, expires_at = excluded.expires_at, updated_at = now() ' +
    'where runtime_turn_leases.expires_at < now() returning holder',
);
const GIVE_BACK = preparedStatement('runtime.lease-give-back', 'delete from runtime_turn_leases where conversation_uuid = $1 and holder = $2');

/** Thrown inside the taking transaction when another process holds the lease: rolled back, then tried again. */
class LeaseTaken extends Error {}

/**
 * Two turns of one conversation run one after the other, never interleaved: each takes
 * the conversation's lease (a row of runtime_turn_leases, see the entity) before it
 * reads the history and gives it back once its messages are recorded. Turns of one
 * process queue in memory first, so only turns of different processes poll the row.
 *
 * The lease is written in the turn's first transaction and deleted in its last, so it
 * costs no commit of its own; a turn that fails between them deletes it on its way out,
 * and one whose process dies leaves a row that expires (`RUNTIME_TURN_LEASE_MS`).
 */
export class TurnLeases {
  /** The tail of each conversation's queue in this process. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly settings: { turnWaitMs: number; turnLeaseMs: number }) {}

  /**
   * Runs `turn` holding the conversation's lease. `first` is the turn's first
   * transaction: it runs with the lease taken in it, and again after a wait when another
   * process holds it; 409 when that lasts past `turnWaitMs`.
   */
  async run<F, T>(
    em: EntityManager,
    tenantUuid: string,
    conversationUuid: string,
    first: (tx: EntityManager) => Promise<F>,
    turn: (opened: F, lease: HeldLease) => Promise<T>,
  ): Promise<T> {
    const deadline = Date.now() + this.settings.turnWaitMs;
    const before = this.queues.get(conversationUuid) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = before.then(() => mine);
    this.queues.set(conversationUuid, tail);
    try {
      await withDeadline(before, deadline);
      const lease: HeldLease = { conversationUuid, holder: crypto.randomUUID(), released: false };
      const opened = await this.take(em, tenantUuid, lease, deadline, first);
      try {
        return await turn(opened, lease);
      } finally {
        if (!lease.released) await boundQuery(em.fork(), GIVE_BACK, [conversationUuid, lease.holder]);
      }
    } finally {
      done();
      if (this.queues.get(conversationUuid) === tail) this.queues.delete(conversationUuid);
    }
  }

  /** Gives the lease back in `tx`, the turn's last transaction; marked released once that commits. */
  async release(tx: EntityManager, lease: HeldLease): Promise<void> {
    await boundQuery(tx, GIVE_BACK, [lease.conversationUuid, lease.holder]);
  }

  private async take<F>(em: EntityManager, tenantUuid: string, lease: HeldLease, deadline: number, first: (tx: EntityManager) => Promise<F>): Promise<F> {
    for (let wait = 5; ; wait = Math.min(wait * 2, 250)) {
      try {
        return await em.fork().transactional(async (tx) => {
          const rows = await boundQuery(tx, TAKE, [tenantUuid, lease.conversationUuid, lease.holder, this.settings.turnLeaseMs]);
          if (rows.length === 0) throw new LeaseTaken();
          return first(tx);
        });
      } catch (error) {
        if (!(error instanceof LeaseTaken)) throw error;
      }
      if (Date.now() + wait > deadline) throw busy();
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

function busy(): ConflictError {
  return new ConflictError('Another turn of this conversation is in progress; retry once it has finished');
}

async function withDeadline(previous: Promise<void>, deadline: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(busy()), Math.max(0, deadline - Date.now()))));
  try {
    await Promise.race([previous, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
