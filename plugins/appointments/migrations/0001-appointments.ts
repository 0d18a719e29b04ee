import { Migration } from '@mikro-orm/migrations';

const BASE = `"uuid" uuid not null primary key, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null`;

/** Tables of one tenant each: the tenant's rows go with it. Row-level security is added by the kernel after every migration. */
function tenantTable(name: string, columns: string): string[] {
  return [
    `create table "${name}" (${BASE}, ${columns});`,
    `alter table "${name}" add constraint "${name}_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`,
    `create index "${name}_tenant_uuid_index" on "${name}" ("tenant_uuid");`,
  ];
}

/**
 * Schedules, availability types, appointments and approval requests.
 *
 * `appointments_no_overlap` is what "two appointments of one schedule never overlap"
 * rests on: an exclusion constraint over the schedule and the half-open time range of
 * every live appointment (btree_gist gives GiST the uuid equality). Bookings also lock
 * their schedule's row, which orders them and lets the buffers and daily limits be
 * read safely; the constraint holds even for a writer that forgot the lock.
 */
export class Migration0001Appointments extends Migration {
  override up(): void {
    const statements = [
      `create extension if not exists btree_gist;`,
      ...tenantTable(
        'schedules',
        `"name" text not null, "timezone" text not null, "weekly_hours" jsonb not null, "exceptions" jsonb not null, "questions" jsonb not null, "calendar_connection_uuid" uuid null`,
      ),
      ...tenantTable('availability_types', `"name" text not null, "schedule_uuid" uuid not null, "duration_minutes" int not null, "buffer_before" int not null, "buffer_after" int not null`),
      `alter table "availability_types" add constraint "availability_types_schedule_uuid_foreign" foreign key ("schedule_uuid") references "schedules" ("uuid") on delete cascade;`,
      `create index "availability_types_schedule_uuid_index" on "availability_types" ("schedule_uuid");`,
      ...tenantTable(
        'appointments',
        `"schedule_uuid" uuid not null, "availability_type_uuid" uuid null, "contact_uuid" uuid null, "agent_uuid" uuid null, "conversation_uuid" uuid null, ` +
          `"starts_at" timestamptz not null, "ends_at" timestamptz not null, "status" text not null, "answers" jsonb not null, "notes" text not null default '', ` +
          `"cancellation_reason" text null, "cancelled_at" timestamptz null`,
      ),
      `alter table "appointments" add constraint "appointments_schedule_uuid_foreign" foreign key ("schedule_uuid") references "schedules" ("uuid") on delete cascade;`,
      `alter table "appointments" add constraint "appointments_availability_type_uuid_foreign" foreign key ("availability_type_uuid") references "availability_types" ("uuid") on delete set null;`,
      `create index "appointments_schedule_time_index" on "appointments" ("schedule_uuid", "starts_at");`,
      `create index "appointments_contact_index" on "appointments" ("contact_uuid", "starts_at");`,
      `alter table "appointments" add constraint "appointments_no_overlap" exclude using gist ("schedule_uuid" with =, tstzrange("starts_at", "ends_at", '[)') with &&) where ("status" in ('pending_approval', 'confirmed'));`,
      ...tenantTable(
        'appointment_requests',
        `"kind" text not null, "status" text not null, "appointment_uuid" uuid not null, "agent_uuid" uuid null, "conversation_uuid" uuid null, ` +
          `"starts_at" timestamptz null, "ends_at" timestamptz null, "reason" text null, "expected_response_by" timestamptz null, "decided_at" timestamptz null, "decision_note" text null`,
      ),
      `alter table "appointment_requests" add constraint "appointment_requests_appointment_uuid_foreign" foreign key ("appointment_uuid") references "appointments" ("uuid") on delete cascade;`,
      `create index "appointment_requests_appointment_uuid_index" on "appointment_requests" ("appointment_uuid");`,
      `create index "appointment_requests_status_index" on "appointment_requests" ("status", "created_at");`,
    ];
    for (const statement of statements) this.addSql(statement);
  }

  override down(): void {
    for (const table of ['appointment_requests', 'appointments', 'availability_types', 'schedules']) this.addSql(`drop table if exists "${table}" cascade;`);
  }
}
