import type { TestKernel } from '../../../core/testing';
import { waitFor } from '../../../core/testing';

/** Re-exported for the tests that import it from here. */
export { waitFor };

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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
