import type { TestKernel } from '../../../core/testing';

export interface Effect {
  consumer: string;
  message_id: string;
  topic: string;
  payload: any;
  attempt: number;
  tenant_uuid: string | null;
  pid: number;
  label: string;
  handled_at: string;
}

export async function effects(kit: TestKernel): Promise<Effect[]> {
  return kit.kernel.orm.em.fork().getConnection().execute('select * from probe_effects order by id');
}

export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
