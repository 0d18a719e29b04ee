import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { newUuid } from '../data/uuid';
import type { Envelope } from './bus-types';

export interface OutboxInsert {
  messageId?: string;
  topic: string;
  payload: unknown;
  headers?: Record<string, string>;
  tenantUuid?: string | null;
  dedupeKey?: string | null;
  consumer?: string | null;
  attempt?: number;
  /** Milliseconds from the database's now, or an absolute time. */
  delayMs?: number;
  at?: Date;
}

/**
 * The SQL of the outbox. Times come from the database clock, so several machines
 * with drifting clocks agree on what is due.
 */
export class OutboxStore {
  constructor(
    private readonly orm: MikroORM,
    private readonly leaseSeconds: number,
  ) {}

  /** Inserts in the transaction of `em` (the publisher's). */
  async insert(em: EntityManager, row: OutboxInsert): Promise<string> {
    const connection = em.getConnection();
    const tx = em.getTransactionContext();
    const messageId = row.messageId ?? newUuid();
    if (row.dedupeKey) {
      await connection.execute(
        'delete from bus_outbox where topic = ? and dedupe_key = ? and locked_until is null',
        [row.topic, row.dedupeKey],
        'run',
        tx,
      );
    }
    const due = row.at ? '?::timestamptz' : `clock_timestamp() + (? * interval '1 millisecond')`;
    await connection.execute(
      `insert into bus_outbox (id, message_id, topic, payload, headers, tenant_uuid, dedupe_key, consumer, attempt, due_at, created_at) ` +
        `values (?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ${due}, clock_timestamp())`,
      [
        newUuid(),
        messageId,
        row.topic,
        JSON.stringify(row.payload ?? null),
        JSON.stringify(row.headers ?? {}),
        row.tenantUuid ?? null,
        row.dedupeKey ?? null,
        row.consumer ?? null,
        row.attempt ?? 1,
        row.at ? row.at.toISOString() : Math.max(0, row.delayMs ?? 0),
      ],
      'run',
      tx,
    );
    return messageId;
  }

  /** Leases up to `limit` due rows; another relay skips them until the lease ends. */
  async claim(limit: number): Promise<Envelope[]> {
    const rows: any[] = await this.orm.em.fork().getConnection().execute(
      `update bus_outbox set locked_until = clock_timestamp() + (? * interval '1 second') ` +
        `where id in (select id from bus_outbox where due_at <= clock_timestamp() ` +
        `and (locked_until is null or locked_until < clock_timestamp()) order by due_at limit ? for update skip locked) ` +
        `returning id, message_id, topic, payload, headers, tenant_uuid, consumer, attempt`,
      [this.leaseSeconds, limit],
    );
    return rows.map((row) => ({
      rowId: row.id,
      messageId: row.message_id,
      topic: row.topic,
      payload: row.payload,
      headers: row.headers ?? {},
      tenantUuid: row.tenant_uuid,
      consumer: row.consumer,
      attempt: row.attempt,
    }));
  }

  /** Delivered: gone from the outbox. */
  async complete(rowIds: string[]): Promise<void> {
    if (rowIds.length === 0) return;
    await this.orm.em.fork().getConnection().execute('delete from bus_outbox where id = any(?::uuid[])', [`{${rowIds.join(',')}}`]);
  }

  /** Not delivered (the broker went away): claimable again at once. */
  async release(rowIds: string[]): Promise<void> {
    if (rowIds.length === 0) return;
    await this.orm.em.fork().getConnection().execute('update bus_outbox set locked_until = null where id = any(?::uuid[])', [`{${rowIds.join(',')}}`]);
  }

  /** Milliseconds until the next row is due (or its lease ends); undefined when the outbox is empty. */
  async msUntilNextDue(): Promise<number | undefined> {
    const [row]: any[] = await this.orm.em
      .fork()
      .getConnection()
      .execute(
        `select extract(epoch from (min(greatest(due_at, coalesce(locked_until, due_at))) - clock_timestamp())) * 1000 as wait from bus_outbox`,
      );
    return row?.wait === null || row?.wait === undefined ? undefined : Math.max(0, Number(row.wait));
  }

  async pending(): Promise<number> {
    const [row]: any[] = await this.orm.em.fork().getConnection().execute('select count(*)::int as n from bus_outbox');
    return row.n;
  }
}
