import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logging/logger';
import type { SecretContext } from '../secrets/secret-context';

/** Stripe keeps keys 24 hours: long enough for any client's retries, short enough to stay small. */
export const IDEMPOTENCY_RETENTION_HOURS = 24;
/**
 * How long a non-transactional route's claim holds a key with no answer: if its process
 * dies mid-request, the key is free again after this (the HTTP server ends requests well before).
 */
export const IDEMPOTENCY_LEASE_MINUTES = 15;
const PRUNE_BATCH = 5000;

/** Who sent a key (see idempotency.ts for the scopes) and what the request was. */
export interface KeyedRequest {
  scope: string;
  tenantUuid: string | null;
  key: string;
  requestHash: string;
}

/** A response as stored and replayed. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON text, or null for a response without a body. */
  body: string | null;
}

/** What a key's row says about a new request with it. */
export type Existing =
  | { kind: 'absent' } // never used, expired, or an abandoned claim: run the request
  | { kind: 'running' }
  | { kind: 'done'; sameRequest: boolean; response: StoredResponse };

type Run = (sql: string, params: unknown[], method?: 'all' | 'run') => Promise<any>;

/** Seals and opens stored response bodies (the kernel's secrets service). */
export interface ResponseSeal {
  encrypt(plaintext: string, context: SecretContext): string;
  decrypt(sealed: string, context: SecretContext): string;
}

/** Admin keys have no tenant; their bodies are sealed under this one. */
const NO_TENANT = '00000000-0000-0000-0000-000000000000';
const sealContext = (request: KeyedRequest): SecretContext => ({ tenantUuid: request.tenantUuid ?? NO_TENANT, entity: 'idempotency_key', field: 'response_body' });

/**
 * The row of one key, always inside a transaction holding the key's advisory lock.
 * Response bodies are stored sealed: a replayable answer can carry what is shown only
 * once (a new API token, a webhook's secret), and must not lie in the database in clear.
 */
export class IdempotencyStore {
  constructor(
    private readonly orm: MikroORM,
    private readonly seal: ResponseSeal,
  ) {}

  /**
   * Takes the key's transaction-scoped advisory lock without waiting: false while another
   * transaction holds it (a request with the key is running). The lock ends with the
   * transaction, whether it commits or rolls back, so a failed request frees its key.
   */
  async tryLock(em: EntityManager, request: KeyedRequest): Promise<boolean> {
    const [row] = await run(em)('select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked', [`idempotency ${request.scope} ${request.key}`]);
    return row.locked === true;
  }

  async find(em: EntityManager, request: KeyedRequest): Promise<Existing> {
    const [row] = await run(em)(
      `select state, request_hash, response_status, response_headers, response_body,
              expires_at > clock_timestamp() as live, coalesce(lease_until > clock_timestamp(), false) as leased
         from idempotency_keys where scope = ? and idempotency_key = ?`,
      [request.scope, request.key],
    );
    if (!row || !row.live) return { kind: 'absent' };
    if (row.state === 'running') return row.leased ? { kind: 'running' } : { kind: 'absent' };
    let body: string | null = null;
    try {
      body = row.response_body === null ? null : this.seal.decrypt(row.response_body, sealContext(request));
    } catch {
      // Sealed under a key no longer configured: the answer is lost, so the request runs anew.
      return { kind: 'absent' };
    }
    return { kind: 'done', sameRequest: row.request_hash === request.requestHash, response: { status: row.response_status, headers: row.response_headers ?? {}, body } };
  }

  /** Stores the response in `em`'s transaction, replacing an expired row or an abandoned claim. */
  async save(em: EntityManager, request: KeyedRequest, response: StoredResponse): Promise<void> {
    await this.upsert(em, request, 'done', null, response);
  }

  /** Marks the key as taken by a non-transactional request, for the lease (committed with `em`'s short transaction). */
  async claim(em: EntityManager, request: KeyedRequest): Promise<string> {
    const claim = randomUUID();
    await this.upsert(em, request, 'running', claim, null);
    return claim;
  }

  /** Stores the response of a claimed request, unless its claim was lost (lease run out and taken over). */
  async complete(request: KeyedRequest, claim: string, response: StoredResponse): Promise<void> {
    await run(this.orm.em.fork())(
      `update idempotency_keys set state = 'done', claim = null, lease_until = null,
              response_status = ?, response_headers = ?::jsonb, response_body = ?
        where scope = ? and idempotency_key = ? and claim = ?`,
      [response.status, JSON.stringify(response.headers), this.sealed(request, response), request.scope, request.key, claim],
      'run',
    );
  }

  /** Frees a claimed key whose request failed, so the client may retry it. */
  async release(request: KeyedRequest, claim: string): Promise<void> {
    await run(this.orm.em.fork())('delete from idempotency_keys where scope = ? and idempotency_key = ? and claim = ?', [request.scope, request.key, claim], 'run');
  }

  private sealed(request: KeyedRequest, response: StoredResponse): string | null {
    return response.body === null ? null : this.seal.encrypt(response.body, sealContext(request));
  }

  /** Deletes expired rows in batches (short statements, no long lock); returns how many. */
  async pruneExpired(): Promise<number> {
    const execute = run(this.orm.em.fork());
    let total = 0;
    let removed: number;
    do {
      const result = await execute(
        `delete from idempotency_keys where ctid in (
           select ctid from idempotency_keys
            where expires_at < clock_timestamp() and coalesce(lease_until, '-infinity') < clock_timestamp()
            limit ${PRUNE_BATCH})`,
        [],
        'run',
      );
      removed = result.affectedRows ?? 0;
      total += removed;
    } while (removed === PRUNE_BATCH);
    return total;
  }

  private async upsert(em: EntityManager, request: KeyedRequest, state: 'running' | 'done', claim: string | null, response: StoredResponse | null): Promise<void> {
    await run(em)(
      `insert into idempotency_keys (scope, idempotency_key, tenant_uuid, request_hash, state, claim, lease_until,
                                     response_status, response_headers, response_body, created_at, expires_at)
       values (?, ?, ?, ?, ?, ?, case when ? then clock_timestamp() + interval '${IDEMPOTENCY_LEASE_MINUTES} minutes' end,
               ?, ?::jsonb, ?, clock_timestamp(), clock_timestamp() + interval '${IDEMPOTENCY_RETENTION_HOURS} hours')
       on conflict (scope, idempotency_key) do update set
         tenant_uuid = excluded.tenant_uuid, request_hash = excluded.request_hash, state = excluded.state, claim = excluded.claim,
         lease_until = excluded.lease_until, response_status = excluded.response_status, response_headers = excluded.response_headers,
         response_body = excluded.response_body, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      [
        request.scope,
        request.key,
        request.tenantUuid,
        request.requestHash,
        state,
        claim,
        state === 'running',
        response?.status ?? null,
        response ? JSON.stringify(response.headers) : null,
        response ? this.sealed(request, response) : null,
      ],
      'run',
    );
  }
}

/** Raw SQL in `em`'s transaction, if it has one. */
function run(em: EntityManager): Run {
  return (sql, params, method = 'all') => em.getConnection().execute(sql, params, method, em.getTransactionContext());
}

/** The retention job: hourly, as the bus prunes its inbox; a failed round is logged and tried again next hour. */
export class IdempotencyPruner {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly logger: Logger,
  ) {}

  start(): void {
    const prune = async () => {
      try {
        await this.store.pruneExpired();
      } catch (error) {
        this.logger.warn('idempotency key pruning failed', { error: String(error) });
      }
      this.schedule(prune, 60 * 60 * 1000);
    };
    this.schedule(prune, 60_000);
  }

  stop(): void {
    this.stopped = true; // a round still running does not schedule another
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(fn: () => void, ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(fn, ms);
    this.timer.unref();
  }
}
