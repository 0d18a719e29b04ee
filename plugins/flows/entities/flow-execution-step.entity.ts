import { Entity, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { FlowExecution } from './flow-execution.entity';

export type ExecutionStepStatus = 'succeeded' | 'failed' | 'waiting';

/** What one step did in one execution: its rendered request, its response or error, and how long it took. */
@Entity({ tableName: 'flow_execution_steps' })
export class FlowExecutionStep extends TenantScopedEntity {
  @ManyToOne(() => FlowExecution, { mapToPk: true, fieldName: 'execution_uuid', deleteRule: 'cascade', index: true })
  executionUuid!: string;

  @Property({ type: 'uuid' })
  stepUuid!: string;

  @Property({ type: 'integer' })
  position!: number;

  @Property({ type: 'text' })
  status!: ExecutionStepStatus;

  @Property({ type: 'json', nullable: true })
  request: unknown = null;

  @Property({ type: 'json', nullable: true })
  response: unknown = null;

  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  @Property({ type: 'integer' })
  durationMs!: number;
}
