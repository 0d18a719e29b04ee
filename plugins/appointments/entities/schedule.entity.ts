import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import type { ScheduleException, WeeklyHours } from '../slots';

/** A question asked when booking into the schedule (agents may inherit them). */
export interface ScheduleQuestion {
  name: string;
  type: string;
  description: string;
  required: boolean;
}

/**
 * When a person or resource can be booked: weekly wall-clock hours in `timezone`, and
 * exceptions by local date. Its appointments never overlap (the appointments table's
 * exclusion constraint).
 */
@Entity({ tableName: 'schedules' })
export class Schedule extends TenantScopedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  timezone!: string;

  @Property({ type: 'json' })
  weeklyHours: WeeklyHours & Opt = {};

  @Property({ type: 'json' })
  exceptions: ScheduleException[] & Opt = [];

  @Property({ type: 'json' })
  questions: ScheduleQuestion[] & Opt = [];

  /** A calendar connection of the flows plugin; not a foreign key (another plugin's table). */
  @Property({ type: 'uuid', nullable: true })
  calendarConnectionUuid: string | null = null;
}
