import { Entity, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

/** decisions.md: `draft -> importing -> active <-> paused`, `active -> in_process -> completed`. */
export const CAMPAIGN_STATUSES = ['draft', 'importing', 'active', 'paused', 'in_process', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** The statuses that keep a rule attached (spec: Active, In Process, Importing). */
export const RULE_BLOCKING_STATUSES: readonly CampaignStatus[] = ['active', 'in_process', 'importing'];

/** An outreach campaign: an agent works its pools' contacts with tasks of one type, per its rules. */
@Entity({ tableName: 'campaigns' })
export class Campaign extends TenantScopedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text', default: '' })
  description: string & Opt = '';

  @Property({ type: 'uuid' })
  agentUuid!: string;

  @Property({ type: 'text', default: 'draft' })
  status: CampaignStatus & Opt = 'draft';

  /** The type of the tasks it creates (a task type with a registered executor). */
  @Property({ type: 'text' })
  taskType!: string;

  /** Copied onto each task it creates; never the write-only secret (webhookSecret). */
  @Property({ type: 'json' })
  taskData: Record<string, unknown> & Opt = {};

  /** The write-only `task_data.secret` its tasks get, sealed for the tenant (see campaign-secret.ts); null when it has none. */
  @Property({ type: 'text', nullable: true })
  webhookSecret: string | null = null;

  @Property({ type: 'integer', default: 5 })
  priority: number & Opt = 5;

  /** Why its last activation failed for good (back to `draft`); cleared when it is activated again. */
  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;
}
