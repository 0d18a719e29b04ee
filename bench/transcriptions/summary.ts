/**
 * The figures of bench/transcriptions.ts's runs. Per file, the platform's time is upload
 * request start -> its session's close stamp, less the provider's span for that file
 * (request received -> answer finished, as the provider saw it). Throughput is the bytes
 * of the files taken over the run's wall time.
 */
import { fmt, percentile, round3 } from '../lib/bench-stats';
import { unionLength } from '../lib/runtime-scripted';
import type { FileSample } from './clients';

/**
 * files: end to end, one file after another per client; upload: uploads back to back (the
 * jobs run behind); uploadAlone: the same to a kernel that runs no jobs; direct: the fs driver's `put`, the baseline. The floor (floor.ts), back
 * to back: floorDrain, HTTP alone; floorSpool, the upload spooled; floorIntake, the upload's
 * whole file work; floorJob, that and the job's file work, per file.
 */
export type Side = 'files' | 'upload' | 'uploadAlone' | 'direct' | 'floorDrain' | 'floorSpool' | 'floorIntake' | 'floorStream' | 'floorJob';

export interface RunResult {
  side: Side;
  round: number;
  files: number;
  failed: number;
  /** files: completed files with no provider span recorded (not in the platform-time figures). */
  unattributed: number;
  seconds: number;
  filesPerSecond: number;
  /** Bytes of the files taken, per second of the run (10^6 bytes). */
  megabytesPerSecond: number;
  /** Upload request -> 202 (direct: the put). */
  uploadP50: number;
  uploadP95: number;
  /** files only: upload start -> the session's close stamp. */
  endToEndP50: number | null;
  endToEndP95: number | null;
  /** files only: upload start -> the first poll that saw it completed. */
  seenP50: number | null;
  providerP50: number | null;
  ownP50: number | null;
  ownP95: number | null;
  ownMax: number | null;
  loadAverage: number;
  errors: string[];
}

const sorted = (values: number[]) => values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
const p = (values: number[], at: number) => round3(percentile(values, at));

export function summarise(side: Side, round: number, samples: FileSample[], seconds: number, spans: Record<string, Array<[number, number]>>, loadAverage: number): RunResult {
  const good = samples.filter((s) => s.ok);
  const bytes = good.reduce((sum, s) => sum + s.bytes, 0);
  const upload = sorted(good.map((s) => s.uploadMs));
  const base = {
    side,
    round,
    files: samples.length,
    failed: samples.length - good.length,
    unattributed: 0,
    seconds: round3(seconds),
    filesPerSecond: round3(good.length / seconds),
    megabytesPerSecond: round3(bytes / seconds / 1e6),
    uploadP50: p(upload, 50),
    uploadP95: p(upload, 95),
    endToEndP50: null,
    endToEndP95: null,
    seenP50: null,
    providerP50: null,
    ownP50: null,
    ownP95: null,
    ownMax: null,
    loadAverage: round3(loadAverage),
    errors: [...new Set(samples.filter((s) => !s.ok).map((s) => s.error ?? '?'))].slice(0, 5),
  };
  if (side !== 'files') return base;
  const endToEnd: number[] = [];
  const provider: number[] = [];
  const own: number[] = [];
  let unattributed = 0;
  for (const sample of good) {
    const end = sample.endedAt!;
    endToEnd.push(end - sample.startedAt);
    // The provider's time inside this file's span (a retried request counts every try).
    const inside = (spans[String(sample.id)] ?? []).map(([s, e]) => [Math.max(s, sample.startedAt), Math.min(e, end)] as [number, number]).filter(([s, e]) => e > s);
    if (inside.length === 0) {
      unattributed++;
      continue;
    }
    const providerMs = unionLength(inside);
    provider.push(providerMs);
    own.push(end - sample.startedAt - providerMs);
  }
  const ownSorted = sorted(own);
  return {
    ...base,
    unattributed,
    endToEndP50: p(sorted(endToEnd), 50),
    endToEndP95: p(sorted(endToEnd), 95),
    seenP50: p(sorted(good.map((s) => s.seenMs ?? NaN)), 50),
    providerP50: p(sorted(provider), 50),
    ownP50: p(ownSorted, 50),
    ownP95: p(ownSorted, 95),
    ownMax: round3(ownSorted[ownSorted.length - 1] ?? NaN),
  };
}

export function runLine(r: RunResult): string {
  const head = `  round ${r.round} ${r.side.padEnd(11)} ${fmt(r.megabytesPerSecond, 1).padStart(6)} MB/s  ${fmt(r.filesPerSecond, 1).padStart(5)} files/s  upload p50 ${fmt(r.uploadP50)} p95 ${fmt(r.uploadP95)} ms`;
  const files =
    r.side === 'files'
      ? `  end to end p50 ${fmt(r.endToEndP50 ?? NaN)} (seen ${fmt(r.seenP50 ?? NaN)}) ms  provider p50 ${fmt(r.providerP50 ?? NaN)} ms  platform p50 ${fmt(r.ownP50 ?? NaN)} p95 ${fmt(r.ownP95 ?? NaN)} max ${fmt(r.ownMax ?? NaN)} ms`
      : '';
  return `${head}${files}  load ${fmt(r.loadAverage, 1)}  (${r.files} files, ${r.failed} failed, ${r.unattributed} unattributed)`;
}
