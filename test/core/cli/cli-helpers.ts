import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** With DATABASE_URL a key must be given (none is generated when several machines share the database). */
export const SECRETS_KEY = crypto.randomBytes(32).toString('base64');
export const ROOT = path.resolve(__dirname, '../../..');

/**
 * Each `switchboard` call boots a kernel with every plugin in a process of its own (the
 * first on a fresh clone also compiles the TypeScript): seconds each on a busy machine,
 * tens of seconds beside the fuzz suite. This bounds a hang; the tests wait for the
 * processes, never for a fixed time.
 */
export const CLI_TEST_TIMEOUT_MS = 180_000;

/** Runs `switchboard <args>` as a user would, with only the given environment, in the installation's folder unless `cwd` says another. */
export async function switchboard(args: string[], env: Record<string, string>, cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(ROOT, 'bin/switchboard.js'), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', SECRETS_KEY, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
