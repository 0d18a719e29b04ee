import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '../../../core';
import { unsupportedVersion } from '../app/definition-versions';
import type { FlowCatalog } from '../app/flow-catalog';
import { Flow, FlowConnection, FlowStep, FlowVersion, type StepStatus } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import { summarize, validateConfig } from '../model/config-validation';
import { publicReferences } from '../model/references';
import type { FlowSchema, FlowStepSchema } from './schemas';
import { StepOrder } from './step-order';

export type FlowJson = Static<typeof FlowSchema>;
export type FlowStepJson = Static<typeof FlowStepSchema>;

/** The last test as the `last_test` column stores it. */
export interface LastTest {
  data: unknown;
  error: string | null;
  tested_at: string;
}

/** What outside the flow its steps name, loaded once per answer: connection labels and agent names, by uuid. */
export interface Named {
  connections: Map<string, string>;
  agents: Map<string, string>;
}

export async function loadNamed(em: EntityManager, runtime: FlowsRuntime, steps: readonly FlowStep[]): Promise<Named> {
  const connectionUuids = [...new Set(steps.flatMap((step) => (step.appConnectionUuid ? [step.appConnectionUuid] : [])))];
  const agentUuids = steps.flatMap((step) => (step.agentUuid ? [step.agentUuid] : []));
  const connections = connectionUuids.length > 0 ? await em.find(FlowConnection, { uuid: { $in: connectionUuids } }, { fields: ['uuid', 'label'] }) : [];
  return { connections: new Map(connections.map((row) => [row.uuid, row.label])), agents: await runtime.agents.names(agentUuids) };
}

/** A step's trigger or action at the step's version; undefined when the app does not list it (any more). */
export function definitionOf(catalog: FlowCatalog, step: FlowStep) {
  return step.kind === 'trigger' ? catalog.trigger(step.appUid, step.triggerKey!, step.definitionVersion) : catalog.action(step.appUid, step.actionKey!, step.definitionVersion);
}

/** The step's trigger or action key. */
export const keyOf = (step: FlowStep): string => (step.kind === 'trigger' ? step.triggerKey! : step.actionKey!);

/**
 * A step's status: `ready` when its config validates against the input schema of its
 * trigger's or action's version and nothing it names is gone (a step it refers to, its
 * agent, its app, that version).
 * Computed from the flow as it is, on every read and every write. (A connection in use
 * cannot be deleted: the connections route refuses it.)
 */
export function assess(step: FlowStep, order: StepOrder, named: Named): { status: StepStatus; message: string | null } {
  const { catalog } = order;
  const definition = definitionOf(catalog, step);
  if (!definition) {
    const versions = catalog.versions(step.kind, step.appUid, keyOf(step));
    if (versions) return { status: 'draft', message: unsupportedVersion(step.appUid, step.kind, keyOf(step), step.definitionVersion, versions) };
    const key = `${step.kind} "${keyOf(step)}"`;
    return { status: 'draft', message: catalog.app(step.appUid) ? `app "${step.appUid}" has no ${key} any more` : `app "${step.appUid}" is not installed` };
  }
  const dangling = new Set(publicReferences(step.config, (uuid) => order.positions.get(uuid)).dangling);
  const problems = [...dangling].map((path) => `config.${path} refers to a deleted step`);
  if (step.agentUuid && !named.agents.has(step.agentUuid)) problems.push('agent_uuid: the agent was deleted');
  const invalid = summarize(validateConfig(definition.input, step.config));
  if (invalid) problems.push(invalid);
  return problems.length > 0 ? { status: 'draft', message: problems.join('; ') } : { status: 'ready', message: null };
}

/** Stores every step's status as `assess` finds it (after a write that may change any of them: a delete leaves references dangling elsewhere). */
export function storeStatuses(order: StepOrder, named: Named): void {
  for (const step of order.steps) {
    const { status, message } = assess(step, order, named);
    step.status = status;
    step.statusMessage = message;
  }
}

function appJson(catalog: FlowCatalog, uid: string): FlowStepJson['app'] {
  const app = catalog.app(uid);
  // An app whose plugin was removed still shows the step, under its uid.
  if (!app) return { uid, name: uid, icon: '', category: 'builtin', requires_connection: false };
  return { uid, name: app.name, icon: app.icon, category: app.category, requires_connection: app.category === 'connect' };
}

/** `trigger` or `action` of a step as read: its key, the name of its version (else the newest's), its version and the newest the app has. */
function definitionJson(catalog: FlowCatalog, step: FlowStep) {
  const versions = catalog.versions(step.kind, step.appUid, keyOf(step));
  const name = (definitionOf(catalog, step) ?? versions?.newest)?.name ?? keyOf(step);
  return { key: keyOf(step), name, version: step.definitionVersion, latest_version: versions ? versions.supported[versions.supported.length - 1] : null };
}

export function stepJson(step: FlowStep, order: StepOrder, named: Named): FlowStepJson {
  const { catalog } = order;
  const { status, message } = assess(step, order, named);
  const connectionLabel = step.appConnectionUuid ? named.connections.get(step.appConnectionUuid) : undefined;
  const agentName = step.agentUuid ? named.agents.get(step.agentUuid) : undefined;
  return {
    uuid: step.uuid,
    position: order.position(step),
    kind: step.kind,
    status,
    status_message: message,
    parent_step_uuid: step.parentStepUuid,
    branch_key: step.branchKey,
    app: appJson(catalog, step.appUid),
    trigger: step.kind === 'trigger' ? definitionJson(catalog, step) : null,
    action: step.kind === 'action' ? definitionJson(catalog, step) : null,
    agent: agentName !== undefined ? { uuid: step.agentUuid!, name: agentName } : null,
    app_connection: connectionLabel !== undefined ? { uuid: step.appConnectionUuid!, label: connectionLabel } : null,
    config: publicReferences(step.config, (uuid) => order.positions.get(uuid)).config,
    continue_on_error: step.continueOnError,
    last_test: (step.lastTest as LastTest | null) ?? null,
  };
}

function flowJson(flow: Flow, version: Pick<FlowVersion, 'uuid' | 'number' | 'createdAt'> | undefined, order: StepOrder, named: Named): FlowJson {
  return {
    uuid: flow.uuid,
    name: flow.name,
    description: flow.description,
    status: flow.status,
    live_version: version ? { uuid: version.uuid, number: version.number, deployed_at: version.createdAt.toISOString() } : null,
    created_at: flow.createdAt.toISOString(),
    updated_at: flow.updatedAt.toISOString(),
    steps: order.flat.map((step) => stepJson(step, order, named)),
  };
}

/** Flows as the API shows them, with a fixed number of queries whatever their count (steps, live versions, connection labels, agent names). */
export async function renderFlows(em: EntityManager, runtime: FlowsRuntime, flows: readonly Flow[]): Promise<FlowJson[]> {
  if (flows.length === 0) return [];
  const versionUuids = flows.flatMap((flow) => (flow.liveVersionUuid ? [flow.liveVersionUuid] : []));
  const steps = await em.find(FlowStep, { flowUuid: { $in: flows.map((flow) => flow.uuid) } });
  const versions = versionUuids.length > 0 ? await em.find(FlowVersion, { uuid: { $in: versionUuids } }, { fields: ['uuid', 'number', 'createdAt'] }) : [];
  const named = await loadNamed(em, runtime, steps);
  const versionByUuid = new Map(versions.map((version) => [version.uuid, version]));
  return flows.map((flow) => {
    const order = new StepOrder(
      steps.filter((step) => step.flowUuid === flow.uuid),
      runtime.catalog,
    );
    return flowJson(flow, flow.liveVersionUuid ? versionByUuid.get(flow.liveVersionUuid) : undefined, order, named);
  });
}

export async function renderFlow(em: EntityManager, runtime: FlowsRuntime, flow: Flow): Promise<{ data: FlowJson }> {
  const [json] = await renderFlows(em, runtime, [flow]);
  return { data: json };
}
