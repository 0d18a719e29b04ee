import { Entity, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import { FlowVersion } from './flow-version.entity';

/**
 * Where a deployed poll trigger takes up: the cursor its last poll returned (any JSON),
 * one row per deployed version (its trigger step). `revision` counts the polls stored,
 * so a poll that read an older cursor than the stored one stores nothing and fires
 * nothing (two polls of a version never both start executions for the same items).
 */
@Entity({ tableName: 'flow_trigger_cursors' })
@Unique({ name: 'flow_trigger_cursors_version_unique', properties: ['versionUuid'] })
export class FlowTriggerCursor extends TenantScopedEntity {
  @ManyToOne(() => FlowVersion, { mapToPk: true, fieldName: 'version_uuid', deleteRule: 'cascade' })
  versionUuid!: string;

  /** The version's trigger step. */
  @Property({ type: 'uuid' })
  stepUuid!: string;

  @Property({ type: 'json', nullable: true })
  cursor: unknown = null;

  @Property({ type: 'integer' })
  revision: number & Opt = 0;
}
