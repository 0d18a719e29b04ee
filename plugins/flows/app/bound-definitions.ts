import { BootError } from '../../../core';
import { publishPoll } from '../engine/poll-message';
import { describeScope, type DepsScope, type FlowAppDepsRegistry } from './app-deps';
import type { FlowActionDefinition, FlowAppDeps, FlowTriggerDefinition, OptionsProviderDefinition } from './flow-app';

/**
 * The definitions of an app or app extension as the flows plugin calls them: every
 * context given `deps` (the scope's services, read when the code runs, since the plugin
 * that contributes the scope hands them over in its init, after the catalog is built),
 * and a poll trigger's deploy publishing its first poll. Binding here keeps the callers
 * (the engine, deploy, the options route) free of both.
 */
export interface BoundDefinitions {
  triggers: FlowTriggerDefinition<any>[];
  actions: FlowActionDefinition<any>[];
  options: OptionsProviderDefinition<any>[];
}

type Inject = <C extends object>(context: C) => C;

/** A definition may type its context for the scope's deps only: the same ref under the same name. */
function checkTypedFor(scope: DepsScope, what: string, declared: FlowAppDeps | undefined): void {
  for (const [name, ref] of Object.entries(declared ?? {})) {
    if (scope.deps?.[name]?.id === ref.id) continue;
    const owner = 'uid' in scope ? 'the app does' : 'the extension does';
    throw new BootError(`${describeScope(scope)}: ${what} is typed for deps.${name} ("${ref.id}"), which ${owner} not name in its deps`);
  }
}

function bindTrigger(appUid: string, trigger: FlowTriggerDefinition<any>, inject: Inject | null): FlowTriggerDefinition<any> {
  const bound = { ...trigger };
  const withDeps: Inject = inject ?? ((context) => context);
  if (inject && trigger.onUndeploy) bound.onUndeploy = (context) => trigger.onUndeploy!(inject(context));
  if (inject && trigger.event) {
    const event = trigger.event;
    bound.event = { ...event, matches: (config, message, context) => event.matches(config, message, inject(context)) };
  }
  if (trigger.poll) {
    const poll = trigger.poll;
    if (inject) bound.poll = { ...poll, run: (context, cursor) => poll.run(inject(context), cursor) };
    bound.onDeploy = async (context) => {
      await trigger.onDeploy?.(withDeps(context));
      await publishPoll(context.bus, { version_uuid: context.step.versionUuid, app_uid: appUid, trigger_key: trigger.key });
    };
  } else if (inject && trigger.onDeploy) {
    bound.onDeploy = (context) => trigger.onDeploy!(inject(context));
  }
  return bound;
}

/** `scope`'s triggers, actions and option lists, bound to its deps in `registry`; `appUid` is the app they belong to. */
export function bindDefinitions(scope: DepsScope, appUid: string, registry: FlowAppDepsRegistry): BoundDefinitions {
  const named = Object.keys(scope.deps ?? {}).length > 0;
  const inject: Inject | null = named ? (context) => ({ ...context, deps: registry.of(scope) }) : null;
  for (const trigger of scope.triggers ?? []) checkTypedFor(scope, `trigger "${trigger.key}"`, trigger.deps);
  for (const action of scope.actions ?? []) checkTypedFor(scope, `action "${action.key}"`, action.deps);
  for (const provider of scope.options ?? []) checkTypedFor(scope, `options kind "${provider.kind}"`, provider.deps);
  return {
    triggers: (scope.triggers ?? []).map((trigger) => bindTrigger(appUid, trigger, inject)),
    actions: (scope.actions ?? []).map((action) => (inject ? { ...action, run: (context) => action.run(inject(context)) } : action)),
    options: (scope.options ?? []).map((provider) => (inject ? { ...provider, load: (context) => provider.load(inject(context)) } : provider)),
  };
}
