/**
 * Counts the SQL round trips of this process: every `query` a `pg` client sends (one
 * call: one round trip, even when its text holds several statements, as BEGIN with the
 * tenant setting does). pg_stat_statements is not available on the bench's server, so
 * the count is taken in process, on the prototype of the `pg` the ORM loads (its own
 * copy under @mikro-orm/postgresql) and of the top-level one (the floor's).
 */
import path from 'node:path';

export interface StatementCounts {
  total: number;
  /** By the statement's first words (a named prepared statement by its name). */
  byKind: Record<string, number>;
}

interface PgModule {
  Client: { prototype: { query: (...args: any[]) => any } };
}

/** A statement whose text starts with this is the bench's own probe, not counted. */
export const UNCOUNTED = '/* uncounted */ ';

/** One counter per process: installed once, reset and read by the bench. */
class StatementCounter {
  private counts = new Map<string, number>();
  private installed = false;

  install(): void {
    if (this.installed) return;
    this.installed = true;
    const modules = new Set<PgModule>();
    modules.add(require('pg') as PgModule);
    try {
      const ormPg = require.resolve('pg', { paths: [path.dirname(require.resolve('@mikro-orm/postgresql'))] });
      modules.add(require(ormPg) as PgModule);
    } catch {
      /* the ORM shares the top-level pg */
    }
    for (const module of modules) {
      const proto = module.Client.prototype;
      const query = proto.query;
      const counter = this;
      proto.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
        counter.note(config);
        return query.call(this, config, ...rest);
      };
    }
  }

  private note(config: unknown): void {
    const text = typeof config === 'string' ? config : ((config as { name?: string; text?: string })?.name ?? (config as { text?: string })?.text ?? '?');
    if (text.startsWith(UNCOUNTED)) return;
    const kind = text.replace(/\s+/g, ' ').trim().slice(0, 60);
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }

  reset(): void {
    this.counts.clear();
  }

  read(): StatementCounts {
    let total = 0;
    const byKind: Record<string, number> = {};
    for (const [kind, count] of [...this.counts].sort((a, b) => b[1] - a[1])) {
      total += count;
      byKind[kind] = count;
    }
    return { total, byKind };
  }
}

export const statementCounter = new StatementCounter();
