/**
 * The kernel of bench/calls.ts, run as a child process of its own
 * (`node -r ./bin/register-ts.js bench/calls/kernel.ts`, forked with IPC): the runtime and
 * the plugins it depends on, channels and calls, in role `start` (HTTP and the bus's
 * consumers, as `npm start`: a call's deadline and its end are bus work). Its port is
 * chosen before it boots, because the Twilio-shaped server must reach it: PUBLIC_BASE_URL
 * (`channels.publicBaseUrl`) is the kernel's own URL, so each call's callbacks come here
 * and their signatures are over it. Answers `ready` with its URL and a tenant's token, and
 * `cpu` with its CPU time so far (the parent's figure of CPU per turn, which the machine's
 * other load does not change as it changes latencies).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
export const KERNEL_PLUGINS = ['agents', 'conversations', 'contacts', 'tables', 'memorize', 'runtime', 'channels', 'calls'];

export type KernelMessage =
  | { type: 'ready'; url: string; token: string }
  /** The process's CPU time so far (user + system), ms: the parent takes the difference over a run. */
  | { type: 'cpu'; ms: number }
  | { type: 'error'; error: string };

/** What the parent passes in the child's environment. */
export interface KernelSettings {
  databaseUrl: string;
  llmUrl: string;
  /** The Twilio-shaped server's base URL (its REST API). */
  twilioUrl: string;
  baseDomain: string;
  tenantSlug: string;
  /** Extra kernel config (experiments only). */
  overrides: Record<string, unknown>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function kernelServer(settings: KernelSettings): Promise<void> {
  const { Kernel } = require('../../core/kernel/kernel') as typeof import('../../core/kernel/kernel');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-calls-'));
  const port = await freePort();
  const { channels: channelOverrides, ...overrides } = settings.overrides as { channels?: Record<string, unknown> };
  const kernel = await Kernel.boot({
    role: 'start',
    plugins: KERNEL_PLUGINS.map((id) => path.join(ROOT, 'plugins', id)),
    // Only what is set here: the host's environment must not change what is measured.
    env: {},
    migrate: true,
    config: {
      port,
      host: '127.0.0.1',
      baseDomain: settings.baseDomain,
      databaseUrl: settings.databaseUrl,
      dataDir,
      secretsKey: crypto.randomBytes(32).toString('base64'),
      llmBaseUrl: settings.llmUrl,
      llmModel: 'bench-model',
      llmApiKey: 'sk-bench',
      // The scripted model and the Twilio-shaped server are on loopback, which egress refuses by default.
      egressAllowCidrs: ['127.0.0.0/8'],
      logLevel: 'warn',
      ...overrides,
      channels: { twilioApiBaseUrl: settings.twilioUrl, publicBaseUrl: `http://127.0.0.1:${port}`, ...channelOverrides },
    },
  });
  await kernel.start();
  const { token } = await kernel.tenants.createTenant({ slug: settings.tenantSlug });
  process.on('message', async (message) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send!({ type: 'cpu', ms: (usage.user + usage.system) / 1000 } satisfies KernelMessage);
      return;
    }
    if (message !== 'stop') return;
    await kernel.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send!({ type: 'ready', url: kernel.url, token } satisfies KernelMessage);
}

if (require.main === module) {
  kernelServer(JSON.parse(process.env.BENCH_KERNEL_SETTINGS ?? '{}') as KernelSettings).catch((error) => {
    process.send!({ type: 'error', error: String((error as Error).stack ?? error) } satisfies KernelMessage);
    process.exit(1);
  });
}
