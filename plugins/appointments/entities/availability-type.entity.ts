import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { Schedule } from './schedule.entity';

/** What can be booked in a schedule: how long it lasts and the free time kept around it. */
@Entity({ tableName: 'availability_types' })
export class AvailabilityType extends TenantScopedEntity {
  @Property({ type: 'text' })
  name!: string;

  /** A schedule's types go with it. */
  @ManyToOne(() => Schedule, { mapToPk: true, fieldName: 'schedule_uuid', deleteRule: 'cascade', index: true })
  scheduleUuid!: string;

  @Property({ type: 'integer' })
  durationMinutes!: number;

  @Property({ type: 'integer' })
  bufferBefore!: number;

  @Property({ type: 'integer' })
  bufferAfter!: number;
}
