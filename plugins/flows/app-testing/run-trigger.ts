import type { EntityManager } from '@mikro-orm/postgresql';
import { newUuid, type BusService } from '../../../core';
import type { DepsScope } from '../app/app-deps';
import { pickVersion } from '../app/definition-versions';
import type { FlowTriggerDefinition } from '../app/flow-app';
import { MAX_POLL_EVENTS } from '../engine/poll-triggers';
import { flowCause } from '../runs/flow-triggers';
import { asStored, inTenant, schemaProblems, setUpCall, type AppCallOptions, type CallSetup } from './app-call';
import { recordingBus, type PublishedMessage } from './recording-bus';

export interface RunTriggerOptions extends AppCallOptions {
  /**
   * An event trigger's event: the bus message its topic carries (payload, and headers such
   * as `caused-by`), matched against the config as the flows plugin's consumer does.
   */
  event?: { payload: unknown; headers?: Record<string, string> };
  /** A poll trigger's cursor: what the previous poll returned (null, the default, is the first poll). */
  cursor?: unknown;
  /** Runs the trigger's `onDeploy` or `onUndeploy` hook instead of firing it. */
  lifecycle?: 'deploy' | 'undeploy';
  /** The bus the lifecycle hooks publish on: a recording one by default (see `published`). */
  bus?: BusService;
  /** A hook trigger's URL, for its `hook.config` (a made-up one by default). */
  hookUrl?: string;
}

export interface TriggerRun {
  /** The trigger's output of each execution it starts: the event's payload when it matches, a poll's events; none for a lifecycle hook. */
  outputs: unknown[];
  /** A poll trigger's next cursor (as stored: JSON). */
  cursor?: unknown;
  /** A hook trigger's config members derived from its URL. */
  hookConfig?: Record<string, unknown>;
  /** What a lifecycle hook published on the recording bus (a schedule's first tick). */
  published: PublishedMessage[];
  logs: Array<Record<string, unknown>>;
}

function triggerOf(scope: DepsScope, key: string, version?: number): FlowTriggerDefinition<any> {
  const trigger = pickVersion(scope.triggers, key, version);
  if (!trigger) throw new Error(`${'uid' in scope ? scope.uid : scope.app} has no trigger "${key}"${version === undefined ? '' : ` version ${version}`} (it has ${(scope.triggers ?? []).map((t) => t.key).join(', ') || 'none'})`);
  return trigger;
}

/** What the deployed trigger step is given everywhere. */
const baseContext = (call: CallSetup, em: EntityManager) => ({ tenant: call.tenant, em, egress: call.egress, logger: call.logger, agentUuid: call.agentUuid, step: call.step, ...call.deps });

async function fireOnce(trigger: FlowTriggerDefinition<any>, input: unknown, call: CallSetup, options: RunTriggerOptions): Promise<Pick<TriggerRun, 'outputs' | 'cursor'>> {
  if (trigger.event) {
    if (!options.event) throw new Error(`trigger "${trigger.key}" fires on ${trigger.event.topic} events: pass { event: { payload } }`);
    const message = { id: newUuid(), topic: trigger.event.topic, payload: asStored(options.event.payload), headers: options.event.headers ?? {}, tenant: call.tenant, attempt: 1 };
    // What a flow's own steps wrote does not start it again, before matches() is asked.
    if (message.headers['caused-by'] === flowCause(call.step.flowUuid)) return { outputs: [] };
    const matched = await inTenant(options.kit, call.tenant, true, async (em) => trigger.event!.matches(input, message, baseContext(call, em)));
    return { outputs: matched ? [message.payload] : [] };
  }
  if (trigger.poll) {
    const result = await inTenant(options.kit, call.tenant, false, async (em) =>
      trigger.poll!.run({ ...baseContext(call, em), input, connection: call.connection, http: call.http }, options.cursor ?? null),
    );
    const { events, cursor } = (result ?? {}) as { events?: unknown; cursor?: unknown };
    if (!Array.isArray(events)) throw new Error('the poll answered no `events` array');
    if (events.length > MAX_POLL_EVENTS) throw new Error(`the poll answered ${events.length} events, more than ${MAX_POLL_EVENTS}: return a page and page on with the cursor`);
    return { outputs: asStored(events) as unknown[], cursor: asStored(cursor ?? null) };
  }
  throw new Error(`trigger "${trigger.key}" has no event or poll to run: ${trigger.hook ? 'a request to its URL fires it' : 'its plugin fires it through FlowTriggers'}; pass { lifecycle } to run its hooks`);
}

/**
 * Runs one trigger of an app as the flows plugin would, its config validated first
 * against the trigger's schema (a 422-style `ValidationError` naming `config.<member>`):
 *
 * - an event trigger, given `{ event }`: `matches` for that event (an event its own flow
 *   caused never matches), in a transaction; `outputs` is `[payload]` when it starts the flow;
 * - a poll trigger: one `poll.run` with `{ cursor }`, no transaction open; `outputs` are
 *   its events and `cursor` the next one, checked and stored as the engine does;
 * - `{ lifecycle: 'deploy' | 'undeploy' }`: the trigger's own `onDeploy`/`onUndeploy`
 *   (a `ValidationError` it throws is the deploy's 422), publishing on a recording bus.
 *   The first poll a poll trigger's deploy publishes is the flows plugin's, not the app's, and is not run here.
 *
 * A hook trigger's `hookConfig` is always computed.
 */
export async function runTrigger(scope: DepsScope, key: string, input: unknown, options: RunTriggerOptions = {}): Promise<TriggerRun> {
  const trigger = triggerOf(scope, key, options.version);
  const call = setUpCall(scope, options, schemaProblems(trigger.input, input, 'config'));
  const hookConfig = trigger.hook?.config(options.hookUrl ?? `http://${call.tenant.slug}.localhost/api/v1/hooks/${newUuid()}`);
  const bus = options.bus ?? recordingBus();
  const published = 'published' in bus ? (bus.published as PublishedMessage[]) : [];
  const run: TriggerRun = { outputs: [], published, logs: call.logs, ...(hookConfig ? { hookConfig } : {}) };
  if (options.lifecycle) {
    const hook = options.lifecycle === 'deploy' ? trigger.onDeploy : trigger.onUndeploy;
    await inTenant(options.kit, call.tenant, true, async (em) => hook?.({ ...baseContext(call, em), input, bus }));
    return run;
  }
  if (!trigger.event && !trigger.poll && hookConfig) return run;
  return { ...run, ...(await fireOnce(trigger, input, call, options)) };
}
