import type { TestKernel } from './test-kernel';

export interface OpenTransaction {
  pid: number;
  state: string;
  /** The last statement the connection ran. */
  query: string;
  open_ms: number;
}

/**
 * The connections of the kernel's database that sit in a transaction opened more than
 * `olderThanMs` ago, as PostgreSQL sees them, looked up `samples` times `everyMs` apart
 * (all that were seen). A consumer that calls another system from its `prepare` holds
 * none while the call lasts; one that calls from its handler shows up here, idle in its
 * transaction:
 *
 *   server.reply({ ...answer, delayMs: 1500 });          // a slow model
 *   ... trigger the consumer, wait until the request arrived ...
 *   expect(await transactionsOpenLongerThan(kit, 500, { samples: 5 })).toEqual([]);
 */
export async function transactionsOpenLongerThan(kit: TestKernel, olderThanMs: number, { samples = 1, everyMs = 150 } = {}): Promise<OpenTransaction[]> {
  const seen: OpenTransaction[] = [];
  for (let sample = 0; sample < samples; sample++) {
    if (sample > 0) await new Promise((resolve) => setTimeout(resolve, everyMs));
    seen.push(
      ...(await kit.kernel.orm.em
        .fork()
        .getConnection()
        .execute<OpenTransaction[]>(
          `select pid, state, query, (extract(epoch from now() - xact_start) * 1000)::int as open_ms from pg_stat_activity ` +
            `where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%' and now() - xact_start > ? * interval '1 millisecond'`,
          [olderThanMs],
        )),
    );
  }
  return seen;
}
