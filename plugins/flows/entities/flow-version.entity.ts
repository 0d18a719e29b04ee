import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import { Flow } from './flow.entity';
import type { FlowDefinition } from '../model/flow-definition';

/**
 * An immutable snapshot of a flow, taken by deploy; executions run a version, so later
 * edits never change what a running or past execution did. `active` marks the version
 * the flow is live with; the trigger columns let trigger sources find live flows fast.
 */
@Entity({ tableName: 'flow_versions' })
@Index({ name: 'flow_versions_live_trigger_index', properties: ['tenantUuid', 'triggerAppUid', 'triggerKey'], where: 'active' })
export class FlowVersion extends TenantScopedEntity {
  @ManyToOne(() => Flow, { mapToPk: true, fieldName: 'flow_uuid', deleteRule: 'cascade', index: true })
  flowUuid!: string;

  /** 1, 2, ... per flow. */
  @Property({ type: 'integer' })
  number!: number;

  @Property({ type: 'json' })
  definition!: FlowDefinition;

  @Property({ type: 'text' })
  triggerAppUid!: string;

  @Property({ type: 'text' })
  triggerKey!: string;

  @Property({ type: 'text', nullable: true, index: 'flow_versions_hook_token_index' })
  hookToken: string | null = null;

  @Property({ type: 'boolean' })
  active: boolean & Opt = true;
}
