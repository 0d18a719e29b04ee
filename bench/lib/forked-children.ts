import type { ChildProcess } from 'node:child_process';

/** Asks each forked child to stop (the IPC message `stop`), and kills one that has not exited after 15 s. */
export async function stopForkedChildren(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.send('stop');
        }),
    ),
  );
}
