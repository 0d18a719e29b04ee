import crypto from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError } from '../../../core';

/**
 * Two turns of one conversation run one after the other, never interleaved: each takes
 * the conversation's lease (a row of runtime_turn_leases, see the entity) before it
 * reads the history and gives it back once its messages are recorded. Turns of one
 * process queue in memory first, so only turns of different processes poll the row.
 */
export class TurnLeases {
  /** The tail of each conversation's queue in this process. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly settings: { turnWaitMs: number; turnLeaseMs: number }) {}

  /** Runs `turn` holding the conversation's lease; 409 when another turn holds it past `turnWaitMs`. */
  async run<T>(em: EntityManager, tenantUuid: string, conversationUuid: string, turn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.settings.turnWaitMs;
    const before = this.queues.get(conversationUuid) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = before.then(() => mine);
    this.queues.set(conversationUuid, tail);
    try {
      await withDeadline(before, deadline);
      const holder = await this.take(em, tenantUuid, conversationUuid, deadline);
      try {
        return await turn();
      } finally {
        await em.getConnection().execute(`delete from runtime_turn_leases where conversation_uuid = ? and holder = ?`, [conversationUuid, holder]);
      }
    } finally {
      done();
      if (this.queues.get(conversationUuid) === tail) this.queues.delete(conversationUuid);
    }
  }

  private async take(em: EntityManager, tenantUuid: string, conversationUuid: string, deadline: number): Promise<string> {
    const holder = crypto.randomUUID();
    for (let wait = 5; ; wait = Math.min(wait * 2, 250)) {
      const rows: unknown[] = await em.getConnection().execute(
        `insert into runtime_turn_leases (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, holder, expires_at) ` +
          `values (gen_random_uuid(), ?, now(), now(), ?, ?, now() + ? * interval '1 millisecond') ` +
          `on conflict (conversation_uuid) do update set holder = excluded.holder, expires_at = excluded.expires_at, updated_at = now() ` +
          `where runtime_turn_leases.expires_at < now() returning holder`,
        [tenantUuid, conversationUuid, holder, this.settings.turnLeaseMs],
      );
      if (rows.length > 0) return holder;
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
