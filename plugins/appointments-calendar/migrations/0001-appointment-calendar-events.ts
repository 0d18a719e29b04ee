import { Migration } from '@mikro-orm/migrations';

/**
 * Each synced appointment's event in its schedule's calendar (the entity says why).
 * Row-level security is added by the kernel after every migration.
 */
export class Migration0001AppointmentCalendarEvents extends Migration {
  override up(): void {
    this.addSql(
      `create table "appointment_calendar_events" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, ` +
        `"appointment_uuid" uuid not null, "schedule_uuid" uuid not null, "connection_uuid" uuid not null, "app_uid" text not null, "calendar_id" text not null, ` +
        `"event_id" text null, "state" text not null, "starts_at" timestamptz not null, "ends_at" timestamptz not null, "version" timestamptz not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "appointment_calendar_events_tenant_uuid_index" on "appointment_calendar_events" ("tenant_uuid");`);
    this.addSql(`alter table "appointment_calendar_events" add constraint "appointment_calendar_events_appointment_uuid_unique" unique ("appointment_uuid");`);
    this.addSql(
      `alter table "appointment_calendar_events" add constraint "appointment_calendar_events_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists "appointment_calendar_events" cascade;');
  }
}
