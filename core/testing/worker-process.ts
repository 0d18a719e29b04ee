import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT_DIR } from '../kernel/kernel';
import { readManifest } from '../plugin/plugin-manifest';
import { installedPluginDirs } from '../plugin/plugin-source';
import type { TestKernel } from './test-kernel';

/**
 * Starts a real `switchboard worker` process on a test kernel's database, secrets key
 * and bus (broker and namespace), for tests of what several processes or a killed one
 * do. `env` adds settings (`PLUGINS_PATH`, `DISABLED_PLUGINS`, ...). Short bus leases,
 * so work a killed worker held is delivered again within seconds. Its stderr is piped:
 * read it for the worker's warnings and errors.
 *
 * By default the worker loads the built-in plugins the kernel has and no others
 * (`DISABLED_PLUGINS`): a worker declares a broker queue for each consumer it runs, and
 * the kernel's `stop` removes the queues of its own consumers, so queues of plugins the
 * kernel does not have would stay on the broker after the test (they piled up to
 * hundreds over runs and slowed RabbitMQ to a halt).
 */
export function startWorkerProcess(kit: TestKernel, env: Record<string, string> = {}): ChildProcess {
  const core = kit.kernel.config.core;
  return spawn(process.execPath, [path.join(ROOT_DIR, 'bin/switchboard.js'), 'worker'], {
    cwd: ROOT_DIR,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: core.databaseUrl,
      SECRETS_KEY: core.secretsKey,
      AMQP_URL: core.amqpUrl,
      BUS_NAMESPACE: core.busNamespace,
      BUS_LEASE_SECONDS: '2',
      LOG_LEVEL: 'warn',
      DISABLED_PLUGINS: disabledPluginsExcept(kit.kernel.plugins.map((loaded) => loaded.plugin.id)),
      ...env,
    },
  });
}

/**
 * `DISABLED_PLUGINS` for a worker that loads only `wanted` of the installed plugins
 * (a test's worker needs what its kernel has, not every plugin of the installation).
 */
export function disabledPluginsExcept(wanted: readonly string[]): string {
  return installedPluginDirs(ROOT_DIR, [])
    .map((dir) => readManifest(dir).id)
    .filter((id) => !wanted.includes(id))
    .join(',');
}

/**
 * Resolves with a worker's exit code (null when a signal ended it) once the process has
 * exited and its stderr has been read to the end: 'exit' can come before the last of
 * what it wrote, which is exactly what a test needs to explain a failure.
 */
export function waitForExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    const drained = child.stderr === null || child.stderr.closed;
    if (child.exitCode !== null && drained) return resolve(child.exitCode);
    if (child.signalCode !== null && drained) return resolve(null);
    child.once('close', (code) => resolve(code));
  });
}
