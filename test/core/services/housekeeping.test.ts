import { scheduleHousekeeping } from '../../../core';
import type { LifecycleService, Logger, ProcessRole } from '../../../core';

/** A lifecycle whose start and stop the test drives. */
function lifecycle(role: ProcessRole) {
  const starts: Array<() => void | Promise<void>> = [];
  const stops: Array<() => void | Promise<void>> = [];
  const service: LifecycleService = { role, onStart: (hook) => void starts.push(hook), onStop: (hook) => void stops.push(hook) };
  return {
    service,
    start: async () => {
      for (const hook of starts) await hook();
    },
    stop: async () => {
      for (const hook of stops) await hook();
    },
  };
}

function recordingLogger() {
  const warnings: Array<[string, unknown]> = [];
  return { warnings, logger: { warn: (message: string, meta: unknown) => warnings.push([message, meta]) } as unknown as Logger };
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
};

describe('scheduleHousekeeping', () => {
  it('runs only in processes that do background work', async () => {
    for (const role of ['serve', 'cli'] as const) {
      const life = lifecycle(role);
      const run = jest.fn(async () => {});
      scheduleHousekeeping(life.service, recordingLogger().logger, { what: 'x', everyMs: 1, run });
      await life.start();
      await new Promise((resolve) => setTimeout(resolve, 30));
      await life.stop();
      expect(run).not.toHaveBeenCalled();
    }
  });

  it('runs at the start, again after each run, logs a failed run and goes on', async () => {
    const life = lifecycle('worker');
    const { logger, warnings } = recordingLogger();
    let runs = 0;
    scheduleHousekeeping(life.service, logger, {
      what: 'pruning things',
      everyMs: 5,
      run: async () => {
        runs++;
        if (runs === 2) throw new Error('database gone');
      },
    });
    expect(runs).toBe(0);
    await life.start();
    await until(() => runs >= 4);
    await life.stop();
    expect(warnings).toEqual([['pruning things failed; the next run tries again', { error: 'Error: database gone' }]]);
  });

  it('never overlaps two runs, and a stop aborts the run in progress and waits for it', async () => {
    const life = lifecycle('start');
    let active = 0;
    let most = 0;
    let finished = 0;
    let aborted = false;
    scheduleHousekeeping(life.service, recordingLogger().logger, {
      what: 'sweeping',
      everyMs: 0,
      run: async (signal) => {
        most = Math.max(most, ++active);
        await new Promise((resolve) => setTimeout(resolve, 20));
        aborted = signal.aborted;
        active--;
        finished++;
      },
    });
    await life.start();
    await until(() => finished >= 2 && active === 1);
    await life.stop();
    expect(active).toBe(0);
    expect(aborted).toBe(true);
    const after = finished;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(finished).toBe(after);
    expect(most).toBe(1);
  });
});
