import { Entity, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import { Flow } from './flow.entity';

export type StepKind = 'trigger' | 'action';
export type StepStatus = 'draft' | 'ready';

/**
 * A step of a flow being built. Its place is `(parentStepUuid, branchKey, ord)`: its
 * sibling group and its order in it; `position` is derived from the tree on every
 * read, never stored, so inserts and deletes renumber nothing. `config` keeps
 * references as `{{#<step uuid>.path}}` (see model/references.ts).
 */
@Entity({ tableName: 'flow_steps' })
export class FlowStep extends TenantScopedEntity {
  @ManyToOne(() => Flow, { mapToPk: true, fieldName: 'flow_uuid', deleteRule: 'cascade', index: true })
  flowUuid!: string;

  @Property({ type: 'text' })
  kind!: StepKind;

  /** The `if_condition` step this one is a branch child of. */
  @Property({ type: 'uuid', nullable: true })
  parentStepUuid: string | null = null;

  @Property({ type: 'text', nullable: true })
  branchKey: string | null = null;

  /** Order among its siblings (same parent and branch). */
  @Property({ type: 'integer' })
  ord!: number;

  @Property({ type: 'text' })
  appUid!: string;

  @Property({ type: 'text', nullable: true })
  triggerKey: string | null = null;

  @Property({ type: 'text', nullable: true })
  actionKey: string | null = null;

  /**
   * The version of its trigger or action it was created or last upgraded with
   * (DefinitionVersion): what its config is checked against and, once deployed, what runs.
   */
  @Property({ type: 'integer' })
  definitionVersion: number & Opt = 1;

  @Property({ type: 'uuid', nullable: true })
  agentUuid: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  appConnectionUuid: string | null = null;

  @Property({ type: 'json' })
  config: Record<string, unknown> & Opt = {};

  @Property({ type: 'text' })
  status: StepStatus & Opt = 'draft';

  /** Why the step is a draft: what its config lacks, or a reference to a deleted step. */
  @Property({ type: 'text', nullable: true })
  statusMessage: string | null = null;

  /** `{data, error, tested_at}` of the last `POST .../test`. */
  @Property({ type: 'json', nullable: true })
  lastTest: { data: unknown; error: string | null; tested_at: string } | null = null;

  /** A hook trigger's secret token (the last part of its URL). */
  @Property({ type: 'text', nullable: true })
  @Unique({ name: 'flow_steps_hook_token_unique' })
  hookToken: string | null = null;

  /** A failure of this step is recorded and the execution goes on. */
  @Property({ type: 'boolean' })
  continueOnError: boolean & Opt = false;
}
