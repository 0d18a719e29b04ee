import type { Opt } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { AvailabilityType } from './availability-type.entity';
import { Schedule } from './schedule.entity';

export type AppointmentStatus = 'pending_approval' | 'confirmed' | 'cancelled';
/** The statuses that hold their time: two of them in one schedule never overlap. */
export const LIVE_STATUSES: readonly AppointmentStatus[] = ['pending_approval', 'confirmed'];

/**
 * A booked time of a schedule. `[startsAt, endsAt)` of live appointments of one schedule
 * never overlap: the migration's exclusion constraint says so to the database.
 */
@Entity({ tableName: 'appointments' })
// What "two appointments of one schedule never overlap" rests on (the migration explains); written as PostgreSQL reads it back, so the schema diff sees no change.
@Check({
  name: 'appointments_no_overlap',
  expression: "EXCLUDE USING gist (schedule_uuid WITH =, tstzrange(starts_at, ends_at, '[)'::text) WITH &&) WHERE ((status = ANY (ARRAY['pending_approval'::text, 'confirmed'::text])))",
})
@Index({ name: 'appointments_schedule_time_index', properties: ['scheduleUuid', 'startsAt'] })
@Index({ name: 'appointments_contact_index', properties: ['contactUuid', 'startsAt'] })
export class Appointment extends TenantScopedEntity {
  /** Deleting a schedule is refused while it has upcoming appointments; its past ones go with it. */
  @ManyToOne(() => Schedule, { mapToPk: true, fieldName: 'schedule_uuid', deleteRule: 'cascade', index: false })
  scheduleUuid!: string;

  /** A deleted type leaves its appointments (their times stay what they were). */
  @ManyToOne(() => AvailabilityType, { mapToPk: true, fieldName: 'availability_type_uuid', deleteRule: 'set null', nullable: true, index: false })
  availabilityTypeUuid: string | null = null;

  /** Contacts and agents are other plugins' tables: no foreign keys, as elsewhere. */
  @Property({ type: 'uuid', nullable: true })
  contactUuid: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  agentUuid: string | null = null;

  /** The conversation an agent booked it in; null for the API. */
  @Property({ type: 'uuid', nullable: true })
  conversationUuid: string | null = null;

  @Property({ type: 'datetime' })
  startsAt!: Date;

  @Property({ type: 'datetime' })
  endsAt!: Date;

  @Property({ type: 'text' })
  status!: AppointmentStatus;

  @Property({ type: 'json' })
  answers: Record<string, unknown> & Opt = {};

  @Property({ type: 'text', default: '' })
  notes: string & Opt = '';

  @Property({ type: 'text', nullable: true })
  cancellationReason: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  cancelledAt: Date | null = null;
}
