import type { FuzzWorld, Operation } from './fuzz-world';
import { RawClient, type RawRequest, type RawResponse } from './raw-http';
import { difference, fingerprint, installWriteCounter, tenantTables, type Fingerprint } from './tenant-fingerprint';

/** One request the fuzzer sends, with what it is for. */
export interface FuzzCase {
  op: Operation;
  /** What was done to the request: `body member items.0 := "\u0000"`. */
  label: string;
  request: RawRequest;
  /** Statuses this case must get, beyond "no 5xx" (a 1 MiB body: 413 or 422). */
  expect?: number[];
}

export interface Finding {
  operation: string;
  label: string;
  problem: string;
  /** Enough to replay it: method, path and the start of the body. */
  request: string;
  status?: number;
  answer?: string;
}

/** A stack frame (`    at fn (file:1:2)`) or an internal error's own message leaking into a response. */
const STACK_LINE = /(^|\n|\\n)\s{2,}at \S+ \(?[^\s)]*:\d+:\d+\)?/;
const INTERNAL_ERROR = /"(?:message|error)"\s*:\s*"(?:[A-Z][A-Za-z]*)?(?:Error|Exception): /;
const SOURCE_PATH = /(?:\/core\/|\/plugins\/|node_modules\/)[\w./-]+\.(?:ts|js):\d+/;

/**
 * Sends cases and checks each answer: no 5xx, no stack trace, the statuses a case
 * expects, and, for every 4xx, no row added to or removed from a tenant table. A
 * count that moved around a refused request may be background work of an earlier
 * accepted one (a hook's execution running), so the request is sent again once the
 * system is quiet (outbox drained, counts steady): only a change then is a finding.
 */
export class FuzzRunner {
  readonly findings: Finding[] = [];
  readonly statuses = new Map<number, number>();
  sent = 0;
  /** Where the time went: fingerprints, and waits for quiet after a count moved. */
  readonly timing = { fingerprintMs: 0, fingerprints: 0, quietMs: 0, quiets: 0 };
  private readonly client: RawClient;

  private constructor(
    private readonly world: FuzzWorld,
    private readonly tables: string[],
  ) {
    this.client = new RawClient(world.kit.url);
  }

  static async start(world: FuzzWorld): Promise<FuzzRunner> {
    const tables = tenantTables(world.kit);
    if (tables.length === 0) throw new Error('the ORM metadata names no TenantScoped entity: the write check would check nothing');
    await installWriteCounter(world.kit, tables);
    return new FuzzRunner(world, tables);
  }

  /** How many tenant tables the write check watches. */
  get watchedTables(): number {
    return this.tables.length;
  }

  async run(fuzzCase: FuzzCase): Promise<RawResponse | undefined> {
    const before = await this.fingerprint();
    let res: RawResponse;
    try {
      res = await this.client.send(fuzzCase.request);
    } catch (error) {
      this.report(fuzzCase, `no answer: ${(error as Error).message}`);
      return undefined;
    }
    this.sent++;
    this.statuses.set(res.status, (this.statuses.get(res.status) ?? 0) + 1);
    if (res.status >= 500) this.report(fuzzCase, `answered ${res.status}`, res);
    if (STACK_LINE.test(res.text) || SOURCE_PATH.test(res.text) || (res.status >= 400 && INTERNAL_ERROR.test(res.text))) this.report(fuzzCase, 'the answer shows a stack trace or an internal error', res);
    if (fuzzCase.expect && !fuzzCase.expect.includes(res.status)) this.report(fuzzCase, `answered ${res.status}, not ${fuzzCase.expect.join(' or ')}`, res);
    if (res.status >= 400 && res.status < 500) await this.checkNothingWritten(fuzzCase, before, res);
    return res;
  }

  /** GET /healthz: the process still answers (after each batch). */
  async alive(after: string): Promise<boolean> {
    try {
      const res = await this.client.send({ method: 'GET', path: '/healthz', host: this.world.kit.kernel.config.core.baseDomain }, 10_000);
      if (res.status === 200) return true;
      this.findings.push({ operation: after, label: 'GET /healthz after the batch', problem: `answered ${res.status}`, request: 'GET /healthz' });
    } catch (error) {
      this.findings.push({ operation: after, label: 'GET /healthz after the batch', problem: `no answer: ${(error as Error).message}`, request: 'GET /healthz' });
    }
    return false;
  }

  close(): void {
    this.client.close();
  }

  private async fingerprint(): Promise<Fingerprint> {
    const t0 = Date.now();
    const counts = await fingerprint(this.world.kit);
    this.timing.fingerprintMs += Date.now() - t0;
    this.timing.fingerprints++;
    return counts;
  }

  private async checkNothingWritten(fuzzCase: FuzzCase, before: Fingerprint, res: RawResponse): Promise<void> {
    if (difference(before, await this.fingerprint()).length === 0) return;
    // Twice on a quiet system: background work that merely coincided is not the request's write.
    for (let attempt = 1; attempt <= 2; attempt++) {
      const t0 = Date.now();
      await this.quiet();
      this.timing.quietMs += Date.now() - t0;
      this.timing.quiets++;
      const again = await this.fingerprint();
      const replay = await this.client.send(fuzzCase.request);
      const changed = difference(again, await this.fingerprint());
      if (replay.status !== res.status) {
        // Sent again, the same request got another answer: not a write of a refused request, but worth seeing.
        this.report(fuzzCase, `answered ${res.status}, then ${replay.status} when sent again`, replay, 'note');
        return;
      }
      if (changed.length === 0) return;
      if (attempt === 2) this.report(fuzzCase, `refused with ${replay.status} but wrote rows: ${changed.join(', ')}`, replay);
    }
  }

  /** Background work of earlier requests done: no write over five reads in a row (the outbox may hold delayed messages for long). */
  private async quiet(): Promise<void> {
    let last = await this.fingerprint();
    let steady = 0;
    for (let i = 0; i < 400 && steady < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const now = await this.fingerprint();
      steady = difference(last, now).length === 0 ? steady + 1 : 0;
      last = now;
    }
  }

  private report(fuzzCase: FuzzCase, problem: string, res?: RawResponse, kind: 'finding' | 'note' = 'finding'): void {
    const { method, path, body } = fuzzCase.request;
    const text = typeof body === 'string' ? body : body?.toString('latin1');
    const finding: Finding = {
      operation: fuzzCase.op.name,
      label: fuzzCase.label,
      problem,
      request: `${method} ${path.length > 300 ? `${path.slice(0, 300)}…` : path}${text ? ` ${text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text}` : ''}`,
      ...(res ? { status: res.status, answer: res.text.slice(0, 400) } : {}),
    };
    if (kind === 'note') this.notes.push(finding);
    else this.findings.push(finding);
  }

  readonly notes: Finding[] = [];
}
