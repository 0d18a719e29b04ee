import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from './server-node-flags';

/** The child processes of the benches: each a TypeScript module forked with IPC, that says `ready` (or `error`) once. */

const REGISTER_TS = path.resolve(__dirname, '..', '..', 'bin', 'register-ts.js');

export function spawnChild<Ready>(modulePath: string, env: Record<string, string>, flags: string[] = []): { child: ChildProcess; ready: Promise<Ready> } {
  // stdout ignored (the kernel's info logs would cost the run); stderr kept, so a crash says why.
  const child = fork(modulePath, [], { execArgv: ['-r', REGISTER_TS, ...flags], env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const name = path.basename(modulePath);
  const ready = new Promise<Ready>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
    child.on('message', (message: any) => {
      if (message?.type === 'ready') resolve(message);
      else if (message?.type === 'error') reject(new Error(`${name} failed: ${message.error}`));
    });
  });
  return { child, ready };
}

/** Sends `message` to a child and waits for its answer of `type`. */
export function ask<T>(child: ChildProcess, message: unknown, type: string): Promise<T> {
  return new Promise((resolve) => {
    const listener = (answer: any) => {
      if (answer?.type !== type) return;
      child.off('message', listener);
      resolve(answer);
    };
    child.on('message', listener);
    child.send(message as any);
  });
}

/**
 * A bench kernel (bench-kernel.ts) forked with its settings, run with the server's node
 * flags and BENCH_KERNEL_NODE_OPTIONS's (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
export function spawnKernel(modulePath: string, settings: object): { child: ChildProcess; ready: Promise<{ type: 'ready'; url: string; token: string }> } {
  const flags = [...SERVER_NODE_FLAGS, ...(process.env.BENCH_KERNEL_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)];
  return spawnChild(modulePath, { BENCH_KERNEL_SETTINGS: JSON.stringify(settings) }, flags);
}

export { stopForkedChildren as stopChildren } from './forked-children';

/** A child module's entry: runs `main`, and tells the parent (`error`) when it fails before or after `ready`. */
export function runChild(main: () => Promise<void>): void {
  main().catch((error) => {
    process.send!({ type: 'error', error: String((error as Error).stack ?? error) });
    process.exit(1);
  });
}
