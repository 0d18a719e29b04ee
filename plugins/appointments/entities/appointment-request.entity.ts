import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { Appointment } from './appointment.entity';

export type RequestKind = 'create' | 'reschedule' | 'cancel';
export type RequestStatus = 'pending' | 'approved' | 'rejected';

/**
 * What an agent asked for that a person must approve (`approval.require_approval`): a
 * booking (its appointment waits `pending_approval`, holding the time), a reschedule or
 * a cancellation (the appointment stays as it is until approved).
 */
@Entity({ tableName: 'appointment_requests' })
@Index({ name: 'appointment_requests_status_index', properties: ['status', 'createdAt'] })
export class AppointmentRequest extends TenantScopedEntity {
  @Property({ type: 'text' })
  kind!: RequestKind;

  @Property({ type: 'text' })
  status!: RequestStatus;

  @ManyToOne(() => Appointment, { mapToPk: true, fieldName: 'appointment_uuid', deleteRule: 'cascade', index: true })
  appointmentUuid!: string;

  @Property({ type: 'uuid', nullable: true })
  agentUuid: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  conversationUuid: string | null = null;

  /** A reschedule's new time; a booking's time (also on its appointment); null for a cancellation. */
  @Property({ type: 'datetime', nullable: true })
  startsAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  endsAt: Date | null = null;

  /** Why the agent asked (a cancellation's reason). */
  @Property({ type: 'text', nullable: true })
  reason: string | null = null;

  /** When an answer is expected: created + the agent's `expected_response_time`. */
  @Property({ type: 'datetime', nullable: true })
  expectedResponseBy: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  decidedAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  decisionNote: string | null = null;
}
