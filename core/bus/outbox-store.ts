import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Envelope } from './bus-types';
import { newMessageId } from './message-ids';
import { boundQuery } from '../data/bound-query';
import { preparedStatement } from '../data/prepared-statements';
import type { OutboxCommits } from './outbox-commits';

/** The channel relays LISTEN on, for processes that publish without a relay of their own (see Bus). */
export const OUTBOX_CHANNEL = 'switchboard_outbox';

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

export interface OutboxInsertMany {
  topic: string;
  payloads: readonly unknown[];
  headers?: Record<string, string>;
  tenantUuid?: string | null;
  delayMs?: number;
  at?: Date;
}

/** What a claim leased; when that is nothing, how long until a row is due (undefined: the outbox is empty). */
export interface Claim {
  envelopes: Envelope[];
  msUntilNextDue?: number;
}

/** The outbox has no tenant policy (it holds every tenant's messages): its statements need no tenant setting. */
const NEUTRAL = { tenantNeutral: true };
const INSERT_COLUMNS = 'insert into bus_outbox (id, message_id, topic, payload, headers, tenant_uuid, dedupe_key, consumer, attempt, due_at, created_at)';
/** Exported, with CLAIM_AND_DELETE, for bench/bus's floor, which runs the bus's own statements from bare loops. */
export const INSERT_DUE_IN = preparedStatement(
  'bus.outbox-insert-due-in',
  `${INSERT_COLUMNS} values ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9, clock_timestamp() + ($10::float8 * interval '1 millisecond'), clock_timestamp())`,
  NEUTRAL,
);
const INSERT_DUE_AT = preparedStatement(
  'bus.outbox-insert-due-at',
  `${INSERT_COLUMNS} values ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9, $10::timestamptz, clock_timestamp())`,
  NEUTRAL,
);
/**
 * A keyed message replaces the one of its topic and key still waiting (not leased): the
 * delete and the insert in one statement (one round trip: a chat turn arms its session's
 * idle timer this way on every customer message). The delete works on the statement's
 * snapshot, so it never sees the row the same statement inserts; the key has no unique index.
 */
const replacing = (insert: string) => `with replaced as (delete from bus_outbox where topic = $3 and dedupe_key = $7 and locked_until is null) ${insert}`;
/** Exported for its test (the pending row is found by an index). */
export const REPLACE_DUE_IN = preparedStatement('bus.outbox-replace-due-in', replacing(INSERT_DUE_IN.text), NEUTRAL);
const REPLACE_DUE_AT = preparedStatement('bus.outbox-replace-due-at', replacing(INSERT_DUE_AT.text), NEUTRAL);
/** publishMany's rows, unpacked in order from one JSON array of [id, message id, payload] ($4); $5 is when they are due. */
const insertManyText = (due: string) =>
  'insert into bus_outbox (id, message_id, topic, payload, headers, tenant_uuid, dedupe_key, consumer, attempt, due_at, created_at) ' +
  `select (entry->>0)::uuid, (entry->>1)::uuid, $1, entry->2, $2::jsonb, $3::uuid, null, null, 1, ${due}, clock_timestamp() ` +
  'from jsonb_array_elements($4::jsonb) with ordinality as e(entry, n) order by n';
const INSERT_MANY_DUE_IN = preparedStatement('bus.outbox-insert-many-due-in', insertManyText("clock_timestamp() + ($5::float8 * interval '1 millisecond')"), NEUTRAL);
const INSERT_MANY_DUE_AT = preparedStatement('bus.outbox-insert-many-due-at', insertManyText('$5::timestamptz'), NEUTRAL);
const DELETE_COMPLETED = preparedStatement('bus.outbox-delete-completed', 'delete from bus_outbox where id = any($1::uuid[])', NEUTRAL);

/** The claim, with or without deleting the rows completed since the last one ($3, kept out of what it claims). */
const claimText = (deleting: boolean) => {
  const others = deleting ? 'and id <> all($3::uuid[]) ' : '';
  return (
    'with ' +
    (deleting ? 'done as (delete from bus_outbox where id = any($3::uuid[])), ' : '') +
    `claimed as (update bus_outbox set locked_until = clock_timestamp() + ($1::float8 * interval '1 second') ` +
    // = any(array(...)): the rows are found by primary key (the planner's guess for `in (...)` was a scan of the whole table).
    `where id = any(array(select id from bus_outbox where due_at <= clock_timestamp() ` +
    `and (locked_until is null or locked_until < clock_timestamp()) ${others}` +
    `order by due_at limit $2 for update skip locked)) ` +
    `returning id, message_id, topic, payload, headers, tenant_uuid, consumer, attempt) ` +
    'select *, null::float8 as wait from claimed ' +
    // Nothing claimed: the statement's snapshot is the outbox as it was, less the rows it deletes.
    'union all select null, null, null, null, null, null, null, null, ' +
    `(select extract(epoch from (min(greatest(due_at, coalesce(locked_until, due_at))) - clock_timestamp())) * 1000 from bus_outbox where true ${others}) ` +
    'where not exists (select 1 from claimed)'
  );
};
const CLAIM = preparedStatement('bus.outbox-claim', claimText(false), NEUTRAL);
export const CLAIM_AND_DELETE = preparedStatement('bus.outbox-claim-and-delete', claimText(true), NEUTRAL);
const NOTIFY_RELAYS = preparedStatement('bus.notify-relays', `select pg_notify('${OUTBOX_CHANNEL}', '')`, NEUTRAL);

/** When the store vacuums the outbox (see deleted()); exported for bench/bus's floor, which does the same. */
export const VACUUM_AFTER_ROWS = 2000;
export const VACUUM_EVERY_MS = 1000;

/**
 * The SQL of the outbox. Times come from the database clock, so several machines
 * with drifting clocks agree on what is due.
 */
export class OutboxStore {
  /** Rows delivered but not deleted yet (see complete()). */
  private completed: string[] = [];
  private flushTimer?: NodeJS.Immediate;
  /** Rows deleted since the last VACUUM this process ran, and when that was. */
  private deletedSinceVacuum = 0;
  private lastVacuum = 0;
  private vacuuming?: Promise<void>;

  constructor(
    private readonly orm: MikroORM,
    private readonly leaseSeconds: number,
    /** Told of every insert, so the relay is woken once the inserting transaction commits. */
    private readonly commits: OutboxCommits,
  ) {}

  /** Inserts in the transaction of `em` (the publisher's). */
  async insert(em: EntityManager, row: OutboxInsert): Promise<string> {
    const messageId = row.messageId ?? newMessageId();
    const statement = row.dedupeKey ? (row.at ? REPLACE_DUE_AT : REPLACE_DUE_IN) : row.at ? INSERT_DUE_AT : INSERT_DUE_IN;
    await boundQuery(em, statement, [
      newMessageId(),
      messageId,
      row.topic,
      JSON.stringify(row.payload ?? null),
      JSON.stringify(row.headers ?? {}),
      row.tenantUuid ?? null,
      row.dedupeKey ?? null,
      row.consumer ?? null,
      row.attempt ?? 1,
      row.at ? row.at.toISOString() : Math.max(0, row.delayMs ?? 0),
    ]);
    this.commits.noteWrite(em);
    return messageId;
  }

  /**
   * Inserts one row per payload in one prepared statement, in the transaction of `em`.
   * The payloads travel as one bound JSON array (the connection's `execute` would inline
   * it as a literal), unpacked in order.
   */
  async insertMany(em: EntityManager, rows: OutboxInsertMany): Promise<string[]> {
    const messageIds = rows.payloads.map(() => newMessageId());
    const entries = rows.payloads.map((payload, index) => [newMessageId(), messageIds[index], payload ?? null]);
    await boundQuery(em, rows.at ? INSERT_MANY_DUE_AT : INSERT_MANY_DUE_IN, [
      rows.topic,
      JSON.stringify(rows.headers ?? {}),
      rows.tenantUuid ?? null,
      JSON.stringify(entries),
      rows.at ? rows.at.toISOString() : Math.max(0, rows.delayMs ?? 0),
    ]);
    this.commits.noteWrite(em);
    return messageIds;
  }

  /**
   * Leases up to `limit` due rows; another relay skips them until the lease ends.
   * Rows completed since the last statement are deleted by the same statement (one
   * round trip and one commit per relay cycle instead of two). When nothing is due, the
   * same statement also says how long until something is (the relay's sleep), so an
   * idle cycle is one round trip too.
   */
  async claim(limit: number): Promise<Claim> {
    const done = this.takeCompleted();
    let rows: any[];
    try {
      rows = await (done.length > 0
        ? boundQuery(this.orm.em, CLAIM_AND_DELETE, [this.leaseSeconds, limit, done])
        : boundQuery(this.orm.em, CLAIM, [this.leaseSeconds, limit]));
    } catch (error) {
      this.restoreCompleted(done);
      throw error;
    }
    this.deleted(done.length);
    if (rows.length === 1 && rows[0].id === null) {
      const wait = rows[0].wait;
      return { envelopes: [], msUntilNextDue: wait === null || wait === undefined ? undefined : Math.max(0, Number(wait)) };
    }
    return {
      envelopes: rows.map((row) => ({
        rowId: row.id,
        messageId: row.message_id,
        topic: row.topic,
        payload: row.payload,
        headers: row.headers ?? {},
        tenantUuid: row.tenant_uuid,
        consumer: row.consumer,
        attempt: row.attempt,
      })),
    };
  }

  /**
   * Delivered: gone from the outbox. The DELETE is deferred a moment and shared: rows
   * completed together (a confirmed relay batch, in-process deliveries finishing at
   * once) go in one statement, or in the relay's next claim. Until it runs the rows
   * stay leased, so nobody sends them again; if the process dies first, the lease
   * runs out and they are sent again, which the consumers' inbox makes harmless.
   */
  complete(rowIds: string[]): void {
    if (rowIds.length === 0) return;
    for (const id of rowIds) this.completed.push(id);
    if (this.flushTimer === undefined) this.flushTimer = setImmediate(() => void this.flushCompleted().catch(() => {}));
  }

  /** Deletes the completed rows now (the relay's stop); returns how many. */
  async flushCompleted(): Promise<number> {
    if (this.flushTimer !== undefined) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    const done = this.takeCompleted();
    if (done.length === 0) return 0;
    try {
      await boundQuery(this.orm.em, DELETE_COMPLETED, [done]);
    } catch (error) {
      // Kept for the next claim or flush; meanwhile the lease keeps the rows from being sent again.
      this.restoreCompleted(done);
      throw error;
    }
    this.deleted(done.length);
    return done.length;
  }

  /**
   * Every message leaves two dead row versions in the outbox (the lease, the delete),
   * and every claim reads them until they are vacuumed: at a few thousand messages a
   * second, autovacuum (once a minute at most) lets the table grow tenfold and the
   * claims slow down with it. So after VACUUM_AFTER_ROWS deletions, at most once a
   * second, the store vacuums the table itself, in the background (skipped when
   * autovacuum or another process is at it; a warning only without the right to).
   */
  private deleted(rows: number): void {
    this.deletedSinceVacuum += rows;
    if (this.vacuuming || this.deletedSinceVacuum < VACUUM_AFTER_ROWS || Date.now() - this.lastVacuum < VACUUM_EVERY_MS) return;
    this.deletedSinceVacuum = 0;
    this.lastVacuum = Date.now();
    this.vacuuming = this.orm.em
      .getConnection()
      .execute('vacuum (skip_locked) bus_outbox', [], 'run')
      .then(
        () => {},
        () => {
          /* not the table's owner, or the database is away: autovacuum remains */
        },
      )
      .finally(() => {
        this.vacuuming = undefined;
      });
  }

  /** Waits for a background VACUUM in progress (before the pool closes). */
  async idle(): Promise<void> {
    await this.vacuuming;
  }

  private takeCompleted(): string[] {
    const done = this.completed;
    this.completed = [];
    return done;
  }

  private restoreCompleted(done: string[]): void {
    this.completed.push(...done);
  }

  /** Wakes the relays of other processes (LISTEN in relay.ts): one NOTIFY, in a transaction of its own. */
  async notifyRelays(): Promise<void> {
    await this.orm.em.getConnection().execute(NOTIFY_RELAYS.text, [], 'run');
  }

  /** Not delivered (the broker went away): claimable again at once. */
  async release(rowIds: string[]): Promise<void> {
    if (rowIds.length === 0) return;
    await this.orm.em.getConnection().execute('update bus_outbox set locked_until = null where id = any(?::uuid[])', [`{${rowIds.join(',')}}`]);
  }

  async pending(): Promise<number> {
    const [row]: any[] = await this.orm.em.getConnection().execute('select count(*)::int as n from bus_outbox');
    return row.n;
  }
}
