import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import { Flow } from './flow.entity';
import { FlowVersion } from './flow-version.entity';

export type ExecutionStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/**
 * One run of a flow version, started by one trigger event. `cursor` is the next step
 * to run (null when done): it advances in the same transaction that records the step
 * results, so a worker that dies mid-run leaves the execution where its last commit put it.
 */
@Entity({ tableName: 'flow_executions' })
@Index({ name: 'flow_executions_history_index', properties: ['flowUuid', 'createdAt'] })
@Index({ name: 'flow_executions_created_at_index', properties: ['createdAt'] })
export class FlowExecution extends TenantScopedEntity {
  @ManyToOne(() => Flow, { mapToPk: true, fieldName: 'flow_uuid', deleteRule: 'cascade' })
  flowUuid!: string;

  @ManyToOne(() => FlowVersion, { mapToPk: true, fieldName: 'version_uuid', deleteRule: 'cascade', index: true })
  versionUuid!: string;

  @Property({ type: 'text' })
  status: ExecutionStatus & Opt = 'queued';

  /** The trigger's output: what step 1 hands the others. */
  @Property({ type: 'json' })
  triggerEvent!: unknown;

  @Property({ type: 'uuid', nullable: true })
  cursor: string | null = null;

  /** Segments run so far; a continuation message names the segment it continues, so a stale one is ignored. */
  @Property({ type: 'integer' })
  segment: number & Opt = 0;

  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  startedAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  finishedAt: Date | null = null;
}
