import { startTestKernel, type TestKernel } from '../../../core/testing';
import { APPOINTMENT_PLUGINS } from './appointments-kit';

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: APPOINTMENT_PLUGINS });
});
afterAll(() => kit?.stop());

describe('appointments database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('the database itself refuses two live appointments of one schedule that overlap, and lets a cancelled one be', async () => {
    const connection = kit.kernel.orm.em.fork().getConnection();
    const tenant = kit.tenant.uuid;
    const schedule = '00000000-0000-4000-8000-0000000000a1';
    await connection.execute(`insert into schedules (uuid, tenant_uuid, created_at, updated_at, name, timezone, weekly_hours, exceptions, questions) values (?, ?, now(), now(), 'raw', 'UTC', '{}', '[]', '[]')`, [schedule, tenant]);
    const insert = (uuid: string, from: string, to: string, status: string) =>
      connection.execute(
        `insert into appointments (uuid, tenant_uuid, created_at, updated_at, schedule_uuid, starts_at, ends_at, status, answers, notes) values (?, ?, now(), now(), ?, ?, ?, ?, '{}', '')`,
        [uuid, tenant, schedule, from, to, status],
      );
    await insert('00000000-0000-4000-8000-0000000000b1', '2030-01-07T10:00:00Z', '2030-01-07T10:30:00Z', 'confirmed');
    await expect(insert('00000000-0000-4000-8000-0000000000b2', '2030-01-07T10:15:00Z', '2030-01-07T10:45:00Z', 'pending_approval')).rejects.toMatchObject({ code: '23P01' });
    // Half-open ranges: one ending at 10:30 and one starting then do not overlap.
    await insert('00000000-0000-4000-8000-0000000000b3', '2030-01-07T10:30:00Z', '2030-01-07T11:00:00Z', 'confirmed');
    await insert('00000000-0000-4000-8000-0000000000b4', '2030-01-07T10:00:00Z', '2030-01-07T10:30:00Z', 'cancelled');
    await connection.execute(`delete from schedules where uuid = ?`, [schedule]);
  });
});
