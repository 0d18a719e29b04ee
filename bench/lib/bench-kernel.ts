/**
 * A bench's kernel, run in a child process of its own (forked with IPC by the bench, see
 * children.ts): the plugins the bench names, booted against the bench database and the
 * scripted model, with nothing from the host's environment. It creates one tenant and
 * answers `ready` with its URL and the tenant's token; on `cpu`, its CPU time so far (a
 * bench's figure of CPU per unit of work, which the machine's other load does not change
 * as it changes latencies); on `stop`, it stops and removes its data folder.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export type BenchKernelMessage =
  | { type: 'ready'; url: string; token: string }
  /** The process's CPU time so far (user + system), ms: the parent takes the difference over a run. */
  | { type: 'cpu'; ms: number }
  | { type: 'error'; error: string };

/** What every bench kernel is told by its parent (in its environment, BENCH_KERNEL_SETTINGS). */
export interface BenchKernelSettings {
  databaseUrl: string;
  llmUrl: string;
  baseDomain: string;
  tenantSlug: string;
  /** Extra kernel config (experiments only, BENCH_KERNEL_CONFIG); a plugin's section is merged over the bench's. */
  overrides: Record<string, unknown>;
}

export interface BenchKernelOptions {
  /** Names the data folder (switchboard-bench-<name>-*). */
  name: string;
  plugins: readonly string[];
  /** `start` also consumes the bus (as `npm start`), `serve` only serves HTTP. */
  role: 'start' | 'serve';
  settings: BenchKernelSettings;
  /** 0: any free port. */
  port?: number;
  /** The bench's config of its plugins, by section (e.g. `channels`). */
  sections?: Record<string, Record<string, unknown>>;
}

/** The parent's side: the settings every bench kernel takes, with BENCH_KERNEL_CONFIG's overrides. */
export function benchKernelSettings(databaseUrl: string, llmUrl: string, tenantSlug: string, baseDomain: string): BenchKernelSettings {
  return { databaseUrl, llmUrl, baseDomain, tenantSlug, overrides: process.env.BENCH_KERNEL_CONFIG ? JSON.parse(process.env.BENCH_KERNEL_CONFIG) : {} };
}

/** The settings the parent put in this child's environment. */
export function settingsFromEnv<S>(): S {
  return JSON.parse(process.env.BENCH_KERNEL_SETTINGS ?? '{}') as S;
}

/** A port free now, for a kernel whose own URL must be known before it boots (its callbacks' base). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function serveBenchKernel(options: BenchKernelOptions): Promise<void> {
  const { Kernel } = require('../../core/kernel/kernel') as typeof import('../../core/kernel/kernel');
  const { settings } = options;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `switchboard-bench-${options.name}-`));
  const sections = Object.fromEntries(
    Object.entries(options.sections ?? {}).map(([key, section]) => [key, { ...section, ...((settings.overrides[key] as Record<string, unknown> | undefined) ?? {}) }]),
  );
  const kernel = await Kernel.boot({
    role: options.role,
    plugins: options.plugins.map((id) => path.join(ROOT, 'plugins', id)),
    // Only what is set here: the host's environment must not change what is measured.
    env: {},
    migrate: true,
    config: {
      port: options.port ?? 0,
      host: '127.0.0.1',
      baseDomain: settings.baseDomain,
      databaseUrl: settings.databaseUrl,
      dataDir,
      secretsKey: crypto.randomBytes(32).toString('base64'),
      llmBaseUrl: settings.llmUrl,
      llmModel: 'bench-model',
      llmApiKey: 'sk-bench',
      // The scripted servers are on loopback, which egress refuses by default.
      egressAllowCidrs: ['127.0.0.0/8'],
      logLevel: 'warn',
      ...settings.overrides,
      ...sections,
    },
  });
  await kernel.start();
  const { token } = await kernel.tenants.createTenant({ slug: settings.tenantSlug });
  process.on('message', async (message) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send!({ type: 'cpu', ms: (usage.user + usage.system) / 1000 } satisfies BenchKernelMessage);
      return;
    }
    if (message !== 'stop') return;
    await kernel.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send!({ type: 'ready', url: kernel.url, token } satisfies BenchKernelMessage);
}

