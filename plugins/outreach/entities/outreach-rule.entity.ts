import { Entity, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

/**
 * A calling/messaging policy: on which weekdays and between which hours (in the
 * contact's time zone) a task may run, how many attempts a contact gets and how far
 * apart, on which channel. Campaigns attach rules; their tasks follow them.
 */
@Entity({ tableName: 'outreach_rules' })
export class OutreachRule extends TenantScopedEntity {
  @Property({ type: 'text' })
  name!: string;

  /** ISO weekdays, 1 (Monday) to 7 (Sunday). */
  @Property({ type: 'json' })
  weekdays: number[] & Opt = [1, 2, 3, 4, 5];

  /** `HH:MM`, inclusive, in the contact's time zone. */
  @Property({ type: 'text', default: '09:00' })
  startTime: string & Opt = '09:00';

  /** `HH:MM`, exclusive. */
  @Property({ type: 'text', default: '18:00' })
  endTime: string & Opt = '18:00';

  /** The zone when the contact has none. */
  @Property({ type: 'text', default: 'UTC' })
  timezone: string & Opt = 'UTC';

  @Property({ type: 'integer', default: 3 })
  maxAttempts: number & Opt = 3;

  @Property({ type: 'integer', default: 60 })
  minGapMinutes: number & Opt = 60;

  /** `call`, `sms`, `chatapp`, `email` or null for any. */
  @Property({ type: 'text', nullable: true })
  channel: string | null = null;

  @Property({ type: 'boolean', default: true })
  isActive: boolean & Opt = true;
}
