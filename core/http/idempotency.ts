import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantRef } from '../context/request-context';
import type { Logger } from '../logging/logger';
import { BadRequestError, ConflictError, ValidationError } from './http-errors';
import { IdempotencyStore, type Existing, type KeyedRequest, type StoredResponse } from './idempotency-store';
import type { UploadedFile } from './multipart-upload';
import { JsonText, Reply, type HttpMethod, type RouteAuth } from './route';
import type { CompiledRoute } from './route-registry';
import { EventStream } from './event-stream';

/**
 * `Idempotency-Key` on POST, with Stripe's semantics (README "Retrying requests safely"):
 * - the same key with the same request within 24 hours replays the first response,
 *   with `Idempotent-Replayed: true`, without running the handler again;
 * - the same key with another method, path, query or body: 422; while a request with
 *   the key is still running: 409 at once;
 * - a response is stored only when the request's work is: in the request's transaction,
 *   so both commit or neither does. A handler that throws (any status) rolls its work
 *   back and stores nothing, so the key may be retried; 5xx responses are never stored.
 *   Requests refused before the handler runs (auth, a malformed key, validation) store nothing.
 *
 * Keys belong to the caller: a tenant's token (`t:`), the admin (`admin`), or for
 * `tenant-host` hooks, which have no token, the tenant and the hook's path (`h:`).
 * Public routes have no caller to scope to and ignore the header.
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const PRINTABLE_KEY = /^[\x20-\x7E]{1,255}$/;

export function takesIdempotencyKey(method: HttpMethod, auth: RouteAuth): boolean {
  return method === 'POST' && auth !== 'public';
}

/** A stored response, sent instead of running the handler (express-app.ts `send`). */
export class ReplayedResponse {
  constructor(readonly response: StoredResponse) {}
}

/**
 * The key and request of a POST that carries an `Idempotency-Key`, or undefined. Called
 * after the input limits are checked and before the schemas run, so the hash covers the
 * body as sent (validation fills in defaults).
 */
export function keyedRequestOf(route: CompiledRoute, req: Request, tenant: TenantRef | undefined, query: unknown, body: unknown, file?: UploadedFile): KeyedRequest | undefined {
  if (!takesIdempotencyKey(route.method, route.auth)) return undefined;
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !PRINTABLE_KEY.test(key)) throw new BadRequestError(`${IDEMPOTENCY_HEADER} must be 1 to 255 printable ASCII characters`);
  // Tokens and hook paths are credentials: only digests of them are stored.
  const scope =
    route.auth === 'admin' ? 'admin' : route.auth === 'tenant' ? `t:${tenant!.uuid}:${digest(`token\n${bearerOf(req)}`)}` : `h:${tenant!.uuid}:${digest(`hook\n${req.path}`)}`;
  const upload = file ? canonical({ field: file.field, name: file.originalName, type: file.declaredType, size: file.size }) : '';
  const requestHash = digest([route.method, req.path, canonical(query), canonical(body), upload].join('\n'));
  return { scope, tenantUuid: route.auth === 'admin' ? null : tenant!.uuid, key, requestHash };
}

/** Runs a keyed request's handler at most once per key (see the file comment). */
export class Idempotency {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly logger: Logger,
  ) {}

  run<E extends EntityManager>(request: KeyedRequest, em: E, route: CompiledRoute, invoke: (em: E) => unknown): Promise<unknown> {
    return route.transactional ? this.inTransaction(request, em, route, invoke) : this.underClaim(request, em, route, invoke);
  }

  /**
   * The key's advisory lock is the first thing the request's transaction takes, without
   * waiting: a second request with the key gets 409 at once instead of a connection
   * blocked on the first, and the lock ends with the transaction, so a rolled-back
   * request frees its key. The stored response commits with the work.
   */
  private inTransaction<E extends EntityManager>(request: KeyedRequest, em: E, route: CompiledRoute, invoke: (em: E) => unknown): Promise<unknown> {
    return em.transactional(async (tx) => {
      const replay = await this.lookUp(tx, request);
      if (replay) return replay;
      const result = await invoke(tx);
      const response = storedResponseOf(route, result);
      if (response.status < 500) await this.store.save(tx, request, response);
      return result;
    });
  }

  /**
   * A non-transactional route may call other systems for minutes, which must hold no
   * transaction; so a short transaction claims the key (state `running`, with a lease)
   * and a second one stores the response after the handler. The two are not atomic with
   * the handler's work: if the process dies in between, the key frees itself when the
   * lease runs out and a retry runs the handler again.
   */
  private async underClaim<E extends EntityManager>(request: KeyedRequest, em: E, route: CompiledRoute, invoke: (em: E) => unknown): Promise<unknown> {
    const claimed = await em.fork().transactional(async (tx) => (await this.lookUp(tx, request)) ?? this.store.claim(tx, request));
    if (claimed instanceof ReplayedResponse) return claimed;
    let result: unknown;
    try {
      result = await invoke(em);
    } catch (error) {
      await this.store.release(request, claimed).catch((failure) => this.logger.warn('could not free an idempotency key; it frees itself when its lease runs out', { error: String(failure) }));
      throw error;
    }
    // A stream's answer is known when it ends: its final value is kept as the JSON answer a retry replays.
    if (result instanceof EventStream) {
      result.onSettled((outcome) =>
        'value' in outcome ? this.complete(request, claimed, storedResponseOf(route, outcome.value)) : this.store.release(request, claimed).catch(() => undefined),
      );
      return result;
    }
    await this.complete(request, claimed, storedResponseOf(route, result));
    return result;
  }

  private async complete(request: KeyedRequest, claimed: string, response: StoredResponse): Promise<void> {
    try {
      if (response.status < 500) await this.store.complete(request, claimed, response);
      else await this.store.release(request, claimed);
    } catch (failure) {
      // The work is done: answering it beats a 5xx that invites a retry of work already done.
      this.logger.warn('could not store an idempotent response; the key frees itself when its lease runs out', { error: String(failure) });
    }
  }

  /** In a transaction: 409 while the key is taken, 422 for another request, the stored response, or undefined to run. */
  private async lookUp(tx: EntityManager, request: KeyedRequest): Promise<ReplayedResponse | undefined> {
    if (!(await this.store.tryLock(tx, request))) throw stillRunning();
    return answerOf(await this.store.find(tx, request));
  }
}

function answerOf(existing: Existing): ReplayedResponse | undefined {
  if (existing.kind === 'absent') return undefined;
  if (existing.kind === 'running') throw stillRunning();
  if (!existing.sameRequest) {
    throw new ValidationError({
      [IDEMPOTENCY_HEADER]: ['was already used with a different request (method, path, query or body); send a new key for a new request'],
    });
  }
  return new ReplayedResponse(existing.response);
}

function stillRunning(): ConflictError {
  return new ConflictError(`A request with this ${IDEMPOTENCY_HEADER} is still in progress; retry once it has finished`);
}

/** What express-app.ts `send` would write for a handler's result. */
export function storedResponseOf(route: CompiledRoute, result: unknown): StoredResponse {
  if (result instanceof Reply) return { status: result.status, headers: { ...result.headers }, body: result.body === undefined ? null : jsonOf(result.body) };
  if (result === undefined) return { status: route.status === 200 ? 204 : route.status, headers: {}, body: null };
  return { status: route.status, headers: {}, body: jsonOf(result) };
}

export function sendReplay(res: Response, replay: ReplayedResponse): void {
  const { status, headers, body } = replay.response;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  if (body === null) return void res.status(status).end();
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function jsonOf(body: unknown): string {
  if (!(body instanceof JsonText)) return JSON.stringify(body);
  return typeof body.text === 'string' ? body.text : Buffer.from(body.text.buffer, body.text.byteOffset, body.text.byteLength).toString('utf8');
}

/** JSON with object members in sorted order, so `{a,b}` and `{b,a}` are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .filter((name) => record[name] !== undefined)
      .map((name) => `${JSON.stringify(name)}:${canonical(record[name])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function digest(text: string): string {
  return crypto.hash('sha256', text, 'hex');
}

function bearerOf(req: Request): string {
  return req.get('authorization')?.match(/^Bearer\s+(\S+)\s*$/i)?.[1] ?? '';
}
