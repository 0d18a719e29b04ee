import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Pool } from 'pg';

/**
 * CPU time of the processes a run keeps busy, for bench/calls.ts: the kernel's (it says it
 * over IPC) and its PostgreSQL backends' (read from /proc, when the server is on this host:
 * the bench database's backends, found in pg_stat_activity). On a shared machine a turn's
 * latency grows with everyone else's load; the CPU it costs barely does, so the two
 * together say what is the platform's and what is the machine's.
 */

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process, ms; null when /proc does not have it (gone, or the server is elsewhere). */
function processCpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** CPU ms of each backend of the pool's database (but the one asking), by pid. */
export async function databaseCpu(pool: Pool): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`);
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms !== null) out.set(pid, ms);
  }
  return out;
}

/** CPU ms the backends spent between two snapshots (a backend that started since counts from zero; one that ended since is lost). */
export function databaseCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
