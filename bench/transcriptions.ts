/**
 * bench/transcriptions: recordings through the transcriptions plugin (plugins/transcriptions),
 * end to end, with a provider that answers at once (the plugin tests' OpenAI-shaped server,
 * bench/transcriptions/provider.ts). Each file is a synthetic minute of 16 kHz 16-bit mono
 * WAV (1.92 MB, bench/transcriptions/audio.ts), uploaded through
 * `POST /api/v1/transcriptions/upload` for an agent; the platform checks it, stores it
 * (storage plugin, fs driver), queues the job, which sends it to the provider, writes the
 * result, and makes the closed `voice` conversation and its closed session.
 *
 * Three sides, measured in the same run, each over the same N files with C clients:
 *
 *   files   end to end: each client uploads a file, polls `GET /api/v1/transcriptions/{uuid}`
 *           until it is `completed`, reads its conversation's session (`GET /api/v1/sessions`)
 *           and checks it closed, then takes the next file. A file's time ends at the session's
 *           `ended_at`, stamped in the transaction that completes the transcription (the poll
 *           only says when to look; what it saw, a poll interval coarser, is reported beside).
 *           The platform's time per file: that span less the provider's own (its span for
 *           the file: request received -> answer finished, reading the upload included).
 *   upload  the uploads only, back to back (each client's next as soon as its last got its
 *           202), the jobs running behind them as they would; bytes per second of the run.
 *           The goal is judged here.
 *   uploadAlone  the same uploads to a second kernel in role `serve` (HTTP only, a database
 *           of its own): no job runs, so this is the upload path's own throughput.
 *   direct  the baseline: the same bytes written with the storage plugin's fs driver
 *           (plugins/storage/fs-file-storage.ts, `put`) in this process, to a folder on the
 *           same filesystem, with C writers.
 *
 * And the design's floor (bench/transcriptions/floor.ts: a bare express app with the kernel's
 * multipart parser and the plugin's intake; no tenant, auth, database or bus), with the same
 * clients:
 *
 *   floorDrain   the upload's body read and dropped: HTTP alone;
 *   floorSpool   the body parsed and its file spooled to a temporary file (as the kernel takes uploads);
 *   floorIntake  and the plugin's intake (sniffed, measured, put): the spooled design's file work;
 *   floorStream  the part streamed by the parser into the plugin's receiveAudio and moved under
 *                its tenant's key: the upload route's design (no spool), its whole file work;
 *   floorJob     and the job's file work (the stored file copied back and read whole), per file:
 *                what a file's bytes cost the design, before any row is written.
 * All back to back, as the upload side.
 *
 * Every stamp is on the system clock (bench/lib/runtime-clock.ts). The machine may be
 * shared: each run reports the load average as it started.
 *
 *   node -r ./bin/register-ts.js bench/transcriptions.ts      (npm run bench:transcriptions)
 *
 * Processes: the kernels (bench/transcriptions/kernel.ts, roles `start` and `serve`), the
 * provider (bench/transcriptions/provider.ts) and the floor's server
 * (bench/transcriptions/floor.ts) each in a child of its own; the clients and the baseline
 * run here. Each round measures every side once, a different one first each round; per
 * side the median of the rounds' figures is reported.
 *
 * Environment:
 *   DATABASE_URL / TEST_DATABASE_URL  PostgreSQL server to create the bench database in
 *                                     (default: an embedded server started for the run)
 *   BENCH_FILES         files per side and round (default 200)
 *   BENCH_SECONDS       length of each recording, s (default 60)
 *   BENCH_CONCURRENCY   clients (and direct writers) at once (default 4, the job's concurrency)
 *   BENCH_ROUNDS        rounds; each measures every side once (default 2)
 *   BENCH_WARMUP_FILES  files through each side before the rounds (default 10; 0: none)
 *   BENCH_POLL_MS       interval of the files side's polls (default 20)
 *   BENCH_KERNEL_NODE_OPTIONS  extra node flags for the kernel child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *   BENCH_KERNEL_CONFIG  JSON object of extra kernel config overrides (experiments only)
 *   BENCH_ENFORCE=1     exit with status 1 when a goal is missed
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { FsFileStorage } from '../plugins/storage/fs-file-storage';
import { fmt, medians, numberEnv, printTable, round3, resultsStamp, writeResults } from './lib/bench-stats';
import { benchKernelSettings } from './lib/bench-kernel';
import { benchMain, type BenchFrame } from './lib/bench-main';
import { ask, spawnChild, spawnKernel } from './lib/children';
import { recordings } from './transcriptions/audio';
import { createAgent, directWrite, endToEnd, inParallel, settleAll, uploadOnly, type FileSample, type Target } from './transcriptions/clients';
import type { KernelSettings } from './transcriptions/kernel';
import type { FloorMessage } from './transcriptions/floor';
import type { ProviderMessage } from './transcriptions/provider';
import { runLine, summarise, type RunResult, type Side } from './transcriptions/summary';

const RESULTS = path.join(__dirname, 'results', 'transcriptions.json');
const TENANT_SLUG = 'bench';
const BASE_DOMAIN = 'localhost';
/** No model is called on this path; the kernel still needs a base URL. */
const NO_MODEL_URL = 'http://127.0.0.1:9/v1';

/** The goals of issue 28. */
const GOALS = { ownP50Ms: 50, uploadShare: 0.5 };

/** A file's longest wait to settle before its run is called stuck. */
const SETTLE_TIMEOUT_MS = 120_000;

type Spans = Extract<ProviderMessage, { type: 'spans' }>;

async function main({ database, children, onClose, newDatabase }: BenchFrame): Promise<number> {
  const settings = {
    files: numberEnv('BENCH_FILES', 200),
    seconds: numberEnv('BENCH_SECONDS', 60),
    concurrency: numberEnv('BENCH_CONCURRENCY', 4),
    rounds: numberEnv('BENCH_ROUNDS', 2),
    warmupFiles: numberEnv('BENCH_WARMUP_FILES', 10),
    pollMs: numberEnv('BENCH_POLL_MS', 20),
  };
  const dispatcher = new Agent({ connections: settings.concurrency * 2, keepAliveTimeout: 60_000 });
  onClose(() => dispatcher.close());
  // The baseline's folder: on the filesystem of the kernel's data folder (both under the OS's temporary folder).
  const directRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-transcriptions-direct-'));
  onClose(async () => fs.rmSync(directRoot, { recursive: true, force: true }));

  const providerChild = spawnChild<Extract<ProviderMessage, { type: 'ready' }>>(path.join(__dirname, 'transcriptions', 'provider.ts'), {});
  children.push(providerChild.child);
  const provider = await providerChild.ready;
  const startKernel = async (role: KernelSettings['role'], databaseUrl: string) => {
    const kernelSettings: KernelSettings = { ...benchKernelSettings(databaseUrl, NO_MODEL_URL, TENANT_SLUG, BASE_DOMAIN), providerUrl: provider.url, providerApiKey: provider.apiKey, role };
    const kernelChild = spawnKernel(path.join(__dirname, 'transcriptions', 'kernel.ts'), kernelSettings);
    children.push(kernelChild.child);
    return kernelChild.ready;
  };
  const kernel = await startKernel('start', database.url);
  // The uploads alone: a second kernel, HTTP only, on a database of its own (its jobs wait in its outbox, no one takes them).
  const serveKernel = await startKernel('serve', (await newDatabase()).url);
  const floorChild = spawnChild<Extract<FloorMessage, { type: 'ready' }>>(path.join(__dirname, 'transcriptions', 'floor.ts'), {});
  children.push(floorChild.child);
  const floor = await floorChild.ready;

  const targetOf = async (server: { url: string; token: string }): Promise<Target> => {
    const seedTarget: Target = { url: server.url, host: `${TENANT_SLUG}.${BASE_DOMAIN}`, token: server.token, agentUuid: '', dispatcher };
    return { ...seedTarget, agentUuid: await createAgent(seedTarget) };
  };
  const target = await targetOf(kernel);
  const aloneTarget = await targetOf(serveKernel);
  const floorTarget: Target = { ...target, url: floor.url, host: '127.0.0.1' };
  const fileOf = recordings(settings.seconds);
  const spans = async () => ask<Spans>(providerChild.child, 'spans', 'spans');

  // Ids are unique across runs (the provider tells files apart by them): run * 10,000 + file.
  let runIndex = 0;
  const runSide = async (side: Side, files: number, round: number): Promise<RunResult> => {
    const run = ++runIndex;
    const ids = Array.from({ length: files }, (_, k) => run * 10_000 + k);
    const bodies = ids.map(fileOf);
    const loadAverage = os.loadavg()[0];
    const storage = new FsFileStorage(path.join(directRoot, `run-${run}`));
    const jobs: Record<Side, (k: number) => Promise<FileSample>> = {
      files: (k) => endToEnd(target, ids[k], bodies[k], settings.pollMs, SETTLE_TIMEOUT_MS),
      upload: (k) => uploadOnly(target, ids[k], bodies[k]),
      uploadAlone: (k) => uploadOnly(aloneTarget, ids[k], bodies[k]),
      direct: (k) => directWrite(storage, ids[k], bodies[k]),
      floorDrain: (k) => uploadOnly(floorTarget, ids[k], bodies[k], '/upload?step=drain'),
      floorSpool: (k) => uploadOnly(floorTarget, ids[k], bodies[k], '/upload?step=spool'),
      floorIntake: (k) => uploadOnly(floorTarget, ids[k], bodies[k], '/upload?step=intake'),
      floorStream: (k) => uploadOnly(floorTarget, ids[k], bodies[k], '/upload?step=stream'),
      floorJob: (k) => uploadOnly(floorTarget, ids[k], bodies[k], '/upload?step=job'),
    };
    const job = jobs[side];
    const { results, seconds } = await inParallel(files, settings.concurrency, job);
    // Untimed: the uploads' jobs finish before the next run (and their failures count).
    const lateFailures = side === 'upload' ? await settleAll(target, results, SETTLE_TIMEOUT_MS) : 0;
    const report = await spans();
    fs.rmSync(storage.root, { recursive: true, force: true });
    const result = summarise(side, round, results, seconds, report.spans, loadAverage);
    if (lateFailures > 0) result.errors.push(`${lateFailures} uploaded file(s) then failed to transcribe`);
    if (report.unmarked > 0) result.errors.push(`${report.unmarked} provider request(s) without a file mark`);
    return { ...result, failed: result.failed + lateFailures };
  };

  // One file end to end first: the path works (upload, job, provider, conversation, session) before anything is measured.
  const check = await runSide('files', 1, 0);
  if (check.failed > 0 || check.unattributed > 0) throw new Error(`the sample file failed: ${runLine(check)} ${check.errors.join(' | ')}`);

  console.log(
    `transcriptions: ${settings.files} files of ${settings.seconds} s (${fmt(fileOf(0).length / 1e6, 2)} MB each), ${settings.concurrency} clients, ` +
      `${settings.rounds} rounds per side after a warm-up of ${settings.warmupFiles} (${os.cpus().length} CPUs, node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`,
  );
  const sides: Side[] = ['files', 'upload', 'uploadAlone', 'direct', 'floorDrain', 'floorSpool', 'floorIntake', 'floorStream', 'floorJob'];
  if (settings.warmupFiles > 0) for (const side of sides) await runSide(side, settings.warmupFiles, 0);
  const runs: RunResult[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    // Each side goes first in turn.
    const order = sides.map((_, i) => sides[(i + round - 1) % sides.length]);
    for (const side of order) {
      const result = await runSide(side, settings.files, round);
      runs.push(result);
      console.log(runLine(result));
      if (result.errors.length > 0) console.log(`    first errors: ${result.errors.slice(0, 3).join(' | ')}`);
    }
  }

  const per = (side: Side) =>
    medians(
      runs.filter((r) => r.side === side),
      ['megabytesPerSecond', 'filesPerSecond', 'uploadP50', 'uploadP95', 'endToEndP50', 'endToEndP95', 'seenP50', 'providerP50', 'ownP50', 'ownP95', 'ownMax', 'loadAverage'],
    );
  const summary = Object.fromEntries(sides.map((side) => [side, per(side)])) as Record<Side, ReturnType<typeof per>>;
  const shareOf = (side: Side) => round3(summary[side].megabytesPerSecond / summary.direct.megabytesPerSecond);
  const uploadShare = shareOf('upload');
  const uploadAloneShare = shareOf('uploadAlone');
  const floorShares = { drain: shareOf('floorDrain'), spool: shareOf('floorSpool'), intake: shareOf('floorIntake'), stream: shareOf('floorStream') };
  const goals = {
    ownP50: { goal: `<= ${GOALS.ownP50Ms} ms`, value: summary.files.ownP50, met: summary.files.ownP50 <= GOALS.ownP50Ms },
    uploadShare: { goal: `>= ${GOALS.uploadShare * 100}% of the fs driver's`, value: uploadShare, met: uploadShare >= GOALS.uploadShare },
  };

  const met = (goal: { met: boolean }) => (goal.met ? 'MET' : 'MISSED');
  const mb = (side: keyof typeof summary) => `${fmt(summary[side].megabytesPerSecond, 1)} MB/s`;
  console.log('');
  console.log(`median of ${settings.rounds} runs per side; platform time = upload start -> session closed (its ended_at stamp), less the provider's span for the file`);
  printTable(
    [
      ['files: end to end p50 | p95', `${fmt(summary.files.endToEndP50)} | ${fmt(summary.files.endToEndP95)} ms`, `seen by polling every ${settings.pollMs} ms: p50 ${fmt(summary.files.seenP50)} ms`],
      ['files: provider’s time p50', `${fmt(summary.files.providerP50)} ms`, 'answers at once; reading the upload included'],
      ['files: platform time p50', `${fmt(summary.files.ownP50)} ms`, `goal <= ${GOALS.ownP50Ms} ms ${met(goals.ownP50)}`],
      ['files: platform time p95 | max', `${fmt(summary.files.ownP95)} | ${fmt(summary.files.ownMax)} ms`, ''],
      ['files: upload -> 202 p50 | p95', `${fmt(summary.files.uploadP50)} | ${fmt(summary.files.uploadP95)} ms`, ''],
      ['files: throughput', `${fmt(summary.files.filesPerSecond, 1)} files/s`, `${mb('files')} end to end`],
      ['upload throughput  upload | direct', `${mb('upload')} | ${mb('direct')}`, 'upload: its jobs run behind, as in use'],
      ['upload / direct', `${fmt(100 * uploadShare, 1)}%`, `goal >= ${GOALS.uploadShare * 100}% ${met(goals.uploadShare)}`],
      ['upload -> 202 p50  upload | direct put', `${fmt(summary.upload.uploadP50)} | ${fmt(summary.direct.uploadP50)} ms`, ''],
      ['uploads alone (no jobs): throughput | share', `${mb('uploadAlone')} | ${fmt(100 * uploadAloneShare, 1)}%`, `upload -> 202 p50 ${fmt(summary.uploadAlone.uploadP50)} ms; a kernel in role serve`],
      ['floor throughput  drain | spool | intake', `${mb('floorDrain')} | ${mb('floorSpool')} | ${mb('floorIntake')}`, 'HTTP alone | + the multipart spool | + sniff, duration, put'],
      ['floor / direct  drain | spool | intake', `${fmt(100 * floorShares.drain, 1)}% | ${fmt(100 * floorShares.spool, 1)}% | ${fmt(100 * floorShares.intake, 1)}%`, 'the upload’s design, no database'],
      ['floor: upload -> 202 p50  drain | spool | intake', `${fmt(summary.floorDrain.uploadP50)} | ${fmt(summary.floorSpool.uploadP50)} | ${fmt(summary.floorIntake.uploadP50)} ms`, ''],
      ['floor streamed: throughput | share | p50', `${mb('floorStream')} | ${fmt(100 * floorShares.stream, 1)}% | ${fmt(summary.floorStream.uploadP50)} ms`, 'parser -> receiveAudio -> storage, moved: the route’s design, no database'],
      ['floor: a file’s bytes, upload + job p50 | p95', `${fmt(summary.floorJob.uploadP50)} | ${fmt(summary.floorJob.uploadP95)} ms`, 'the platform time’s floor: its file work, no database or bus'],
      ['load average (1 min) as runs started, by side', sides.map((side) => fmt(summary[side].loadAverage, 1)).join(' | '), `${sides.join(' | ')}; ${os.cpus().length} CPUs, shared`],
    ],
    26,
  );

  const invalid = runs.filter((r) => r.failed > 0 || r.unattributed > r.files * 0.01);
  if (invalid.length > 0) console.log(`  WARNING: ${invalid.length} run(s) had failed or unattributed files; the figures are not valid`);
  const results = {
    ...resultsStamp('transcriptions'),
    settings,
    summary,
    uploadShare,
    uploadAloneShare,
    floorShares,
    goals,
    valid: invalid.length === 0,
    runs,
  };
  return writeResults(RESULTS, results);
}

benchMain(main);
