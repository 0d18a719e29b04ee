/**
 * The floor of bench/lib/webhook-deliveries.ts: what one agent-webhook delivery must do
 * at the least in this design, from bare `pg` and undici with no kernel, at the kernel's
 * concurrency and pool size, to the same receiver. Per event:
 *
 *   fan-out        begin; the delivery rows; their outbox rows; commit (a batch of up
 *                  to 32 events per transaction, one INSERT per table, as the kernel's
 *                  fan-out consumer batches quick handlers: core/bus/consumer-batches.ts)
 *   the relay      claims due outbox rows in batches (lease, FOR UPDATE SKIP LOCKED) and
 *                  deletes the ones completed since its last claim in the same statement
 *                  (the shape of the bus's postgres claim, core/bus/outbox-store.ts)
 *   prepare        one read of the delivery with its webhook (url, secret, active)
 *   the POST       signed (Standard Webhooks), no transaction held
 *   record         begin; the delivery locked and updated by one UPDATE guarded by its
 *                  queue token; commit (no inbox row: the token makes a repeat harmless,
 *                  so the kernel's delivery consumer keeps no inbox, `inbox: false`)
 *
 * Every statement goes as a named prepared statement (as the kernel's hot statements
 * do). The outbox is a copy of the bus's table, so the kernel (idle while
 * the floor runs) takes none of its rows; the delivery rows go into the real table of
 * the real agent's webhook. The webhook's secret is sealed there: the floor signs with
 * the plaintext the bench chose (a decryption is a few µs; it is not counted).
 */
import crypto from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import { Agent, request } from 'undici';
import { webhookHeaders } from '../../plugins/agent-webhooks';

const OUTBOX = 'bench_delivery_floor_outbox';
const TOPIC = 'agent_webhooks.deliver';

export interface DeliveryFloorTarget {
  databaseUrl: string;
  tenantUuid: string;
  agentUuid: string;
  webhookUuid: string;
  secret: string;
  event: string;
  /** The kernel's databasePoolMax. */
  poolMax: number;
  concurrency: number;
  /** Rows the relay claims at once (the bus's busRelayBatchSize). */
  relayBatch: number;
  /** The fan-out's parallel transactions (the kernel's fan-out consumer's concurrency). */
  fanOutConcurrency: number;
  leaseSeconds: number;
}

export interface DeliveryFloorResult {
  n: number;
  seconds: number;
  perSecond: number;
  /** Round trips per delivery the floor made (counted here, not estimated). */
  statementsPerDelivery: number;
}

interface Statement {
  name: string;
  text: string;
}
const statement = (name: string, text: string): Statement => ({ name, text });

/** Events per fan-out transaction (the bus's MAX_BATCH). */
const FAN_OUT_BATCH = 32;

const DELIVERY_INSERT = statement(
  'floor.delivery-insert',
  `insert into agent_webhook_deliveries (uuid, tenant_uuid, created_at, updated_at, agent_uuid, webhook_uuid, event, body, status, attempts, queue_token, next_attempt_at) ` +
    `select (d->>'uuid')::uuid, $1, now(), now(), $2, $3, $4, d->>'body', 'pending', 0, (d->>'token')::uuid, now() from jsonb_array_elements($5::jsonb) as d`,
);
const OUTBOX_INSERT = statement(
  'floor.outbox-insert',
  `insert into ${OUTBOX} (id, message_id, topic, payload, headers, tenant_uuid, dedupe_key, consumer, attempt, due_at, created_at) ` +
    `select gen_random_uuid(), gen_random_uuid(), '${TOPIC}', jsonb_build_object('delivery_uuid', d->>'uuid', 'queue_token', d->>'token'), '{}'::jsonb, $1, null, null, 1, clock_timestamp(), clock_timestamp() ` +
    `from jsonb_array_elements($2::jsonb) as d`,
);
// The bus's claim-and-delete (outbox-store.ts claimText(true)), without its "how long until the next row" arm.
const CLAIM_AND_DELETE = statement(
  'floor.outbox-claim-and-delete',
  `with done as (delete from ${OUTBOX} where id = any($3::uuid[])), ` +
    `claimed as (update ${OUTBOX} set locked_until = clock_timestamp() + ($1::float8 * interval '1 second') ` +
    `where id = any(array(select id from ${OUTBOX} where due_at <= clock_timestamp() ` +
    `and (locked_until is null or locked_until < clock_timestamp()) and id <> all($3::uuid[]) ` +
    `order by due_at limit $2 for update skip locked)) ` +
    `returning id, message_id, payload, tenant_uuid, attempt) select * from claimed`,
);
const DELETE_COMPLETED = statement('floor.outbox-delete', `delete from ${OUTBOX} where id = any($1::uuid[])`);
const PREPARE_READ = statement(
  'floor.delivery-read',
  `select d.uuid, d.body, d.status, d.queue_token, w.url, w.secret from agent_webhook_deliveries d ` +
    `join agent_webhooks w on w.uuid = d.webhook_uuid and w.is_active where d.uuid = $1`,
);
const RECORD = statement(
  'floor.delivery-record',
  `update agent_webhook_deliveries set status = 'succeeded', attempts = attempts + 1, last_status_code = $3, last_error = null, next_attempt_at = null, updated_at = now() ` +
    `where uuid = $1 and status = 'pending' and queue_token = $2`,
);

/** The floor's outbox: a copy of the bus's, made once per bench database. */
async function prepareTables(pool: Pool): Promise<void> {
  await pool.query(`create table if not exists ${OUTBOX} (like bus_outbox including all)`);
}

/** A wake-up for the relay: set by a fan-out commit or a finished delivery. */
class Wake {
  private waiter?: () => void;
  private pending = false;
  notify(): void {
    this.pending = true;
    this.waiter?.();
  }
  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.waiter = undefined;
        self.pending = false;
        resolve();
      }
      this.waiter = done;
    });
  }
}

/** Runs N events through the floor; resolves once all N deliveries are recorded. */
export async function deliveryFloor(target: DeliveryFloorTarget, n: number): Promise<DeliveryFloorResult> {
  const pool = new Pool({ connectionString: target.databaseUrl, max: target.poolMax });
  const dispatcher = new Agent({ connections: target.concurrency, keepAliveTimeout: 60_000 });
  let statements = 0;
  const query = async (on: Pool | PoolClient, s: Statement | string, values: unknown[] = []) => {
    statements++;
    return typeof s === 'string' ? on.query(s) : on.query({ name: s.name, text: s.text, values });
  };
  const transaction = async (work: (client: PoolClient) => Promise<void>) => {
    const client = await pool.connect();
    try {
      await query(client, 'begin');
      await work(client);
      await query(client, 'commit');
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };
  try {
    await prepareTables(pool);
    statements = 0;
    const wake = new Wake();
    const completed: string[] = [];
    let recorded = 0;
    let failure: unknown;
    let inFlight = 0;
    const started = performance.now();

    // Fan-out: batches of events, one transaction each, fanOutConcurrency at once.
    let nextEvent = 0;
    const fanOut = Promise.all(
      Array.from({ length: target.fanOutConcurrency }, async () => {
        while (nextEvent < n && failure === undefined) {
          const from = nextEvent;
          nextEvent = Math.min(n, from + FAN_OUT_BATCH);
          const rows = Array.from({ length: nextEvent - from }, (_, i) => ({
            uuid: crypto.randomUUID(),
            token: crypto.randomUUID(),
            body: JSON.stringify({ type: target.event, timestamp: new Date().toISOString(), data: { agent_uuid: target.agentUuid, seq: from + i } }),
          }));
          const json = JSON.stringify(rows);
          await transaction(async (client) => {
            await query(client, DELIVERY_INSERT, [target.tenantUuid, target.agentUuid, target.webhookUuid, target.event, json]);
            await query(client, OUTBOX_INSERT, [target.tenantUuid, json]);
          });
          wake.notify();
        }
      }),
    ).catch((error) => {
      failure ??= error;
    });

    const deliver = async (row: { id: string; payload: { delivery_uuid: string; queue_token: string } }) => {
      const { rows } = await query(pool, PREPARE_READ, [row.payload.delivery_uuid]);
      const delivery = rows[0];
      if (!delivery || delivery.status !== 'pending' || delivery.queue_token !== row.payload.queue_token) throw new Error(`floor: delivery ${row.payload.delivery_uuid} not current`);
      const response = await request(delivery.url, { method: 'POST', headers: webhookHeaders(delivery.uuid, delivery.body, target.secret), body: delivery.body, dispatcher });
      await response.body.dump();
      await transaction(async (client) => {
        const updated = await query(client, RECORD, [row.payload.delivery_uuid, row.payload.queue_token, response.statusCode]);
        if (updated.rowCount !== 1) throw new Error(`floor: delivery ${row.payload.delivery_uuid} was not recorded`);
      });
      completed.push(row.id);
      recorded++;
    };

    // The relay: claims what there is room for, hands it to the deliveries (`concurrency` at once).
    const queue: Parameters<typeof deliver>[0][] = [];
    const pump = () => {
      while (inFlight < target.concurrency && queue.length > 0) {
        const row = queue.shift()!;
        inFlight++;
        deliver(row)
          .catch((error) => {
            failure ??= error;
          })
          .finally(() => {
            inFlight--;
            pump();
            wake.notify();
          });
      }
    };
    while (recorded < n && failure === undefined) {
      const room = Math.min(target.relayBatch, target.concurrency * 2 - inFlight - queue.length);
      if (room > 0) {
        const done = completed.splice(0);
        const { rows } = await query(pool, CLAIM_AND_DELETE, [target.leaseSeconds, room, done]);
        if (rows.length > 0) {
          queue.push(...rows);
          pump();
          continue;
        }
      }
      await wake.wait(50);
    }
    await fanOut;
    if (failure !== undefined) throw failure;
    const seconds = (performance.now() - started) / 1000;
    if (completed.length > 0) await query(pool, DELETE_COMPLETED, [completed.splice(0)]);
    return { n, seconds: Math.round(seconds * 1000) / 1000, perSecond: Math.round(n / seconds), statementsPerDelivery: Math.round((100 * statements) / n) / 100 };
  } finally {
    await dispatcher.close().catch(() => {});
    await pool.end().catch(() => {});
  }
}
