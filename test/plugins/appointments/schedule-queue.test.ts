import { setTimeout as sleep } from 'node:timers/promises';
import { inScheduleQueue, queuedSchedules } from '../../../plugins/appointments/booking/schedule-queue';

/** The in-process queue of a schedule's transactions (plugins/appointments/booking/schedule-queue.ts). */
describe('inScheduleQueue', () => {
  it('runs one schedule’s work one at a time, in order of arrival, and other schedules’ alongside', async () => {
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const work = (key: string, name: string, ms: number) =>
      inScheduleQueue(key, async () => {
        running++;
        most = Math.max(most, running);
        log.push(`${name} start`);
        await sleep(ms);
        log.push(`${name} end`);
        running--;
        return name;
      });
    // b is quicker than a, c quicker still: only the queue keeps them in order.
    const results = await Promise.all([work('s1', 'a', 40), work('s1', 'b', 20), work('s1', 'c', 1), work('s2', 'x', 30)]);
    expect(results).toEqual(['a', 'b', 'c', 'x']);
    const own = log.filter((line) => !line.startsWith('x'));
    expect(own).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
    // s2's work did not wait for s1's.
    expect(log.indexOf('x start')).toBeLessThan(log.indexOf('a end'));
    expect(most).toBe(2);
    expect(queuedSchedules()).toBe(0);
  });

  it('a failing work hands on its turn and its caller gets the error', async () => {
    const order: string[] = [];
    const failing = inScheduleQueue('s3', async () => {
      await sleep(10);
      order.push('failing');
      throw new Error('boom');
    });
    const next = inScheduleQueue('s3', async () => {
      order.push('next');
      return 'ok';
    });
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
    expect(order).toEqual(['failing', 'next']);
    expect(queuedSchedules()).toBe(0);
  });
});
