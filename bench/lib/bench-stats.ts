import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Small helpers the benchmarks share: numbers, tables, the results file. */

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** A non-negative number from the environment, or the fallback when unset. */
export function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

/** Median of the values that are numbers (NaN for none). */
export function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The keys of `R` whose values are numbers (or null: a figure a run may not have). */
type NumericKey<R> = { [K in keyof R]: R[K] extends number | null | undefined ? K : never }[keyof R];

/** Per figure, the median of the runs' (rounded to 3 places; a run without it does not count): a side's summary. */
export function medians<R, K extends NumericKey<R>>(runs: readonly R[], keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, round3(median(runs.map((run) => (run[key] as number | null | undefined) ?? NaN)))])) as Record<K, number>;
}

export function fmt(value: number, digits = 2): string {
  return value.toFixed(digits);
}

export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The summary table every bench prints: label, value (right-aligned in `valueWidth`), goal. */
export function printTable(rows: ReadonlyArray<readonly [string, string, string]>, valueWidth: number): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(rows.map(([label, value, goal]) => `${label.padEnd(width)}  ${value.padStart(valueWidth)}  ${goal}`).join('\n'));
}

/** What every results file opens with: the bench, when, and on what (the machine may be shared: its load average as the bench ends). */
export function resultsStamp(bench: string) {
  return { bench, date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg() };
}

/**
 * Writes a bench's results file and says where; answers the exit code: 1 when a run was
 * invalid, or (with BENCH_ENFORCE=1) when a goal is missed.
 */
export function writeResults(file: string, results: { valid: boolean; goals: Record<string, { met: boolean }> }): number {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  console.log(`  results written to ${path.relative(process.cwd(), file)}`);
  if (!results.valid) return 1;
  return process.env.BENCH_ENFORCE === '1' && Object.values(results.goals).some((goal) => !goal.met) ? 1 : 0;
}
