import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationError, createServiceRef, type TenantRef } from '../../../core';
import type { FlowActionDefinition, FlowConnectionValue, FlowOption } from '../app/flow-app';
import { FlowConnection, type ConnectionStatus } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import { validateConfig } from '../model/config-validation';
import { engineHttp } from './connection-http';
import { usableConnection } from './connection-store';

/** A connection of the tenant as other plugins may see it: never its credentials. */
export interface FlowConnectionInfo {
  uuid: string;
  app_uid: string;
  label: string;
  status: ConnectionStatus;
}

export interface FlowActionRunOptions {
  /**
   * The action's `context.idempotencyKey`: give the same key to every try of one logical
   * call, so a call repeated after a failure has no second effect (the calendar apps'
   * `create_event` makes one event per key). A fresh key each call by default.
   */
  idempotencyKey?: string;
  /** The version of the action to run; the newest the app lists by default. */
  version?: number;
}

/**
 * Flow-app actions and option lists run by another plugin with one of the current
 * tenant's connections, outside any flow (a schedule's calendar, read and written by
 * the appointments link). Only actions that call another system (`external`) run here:
 * they get no transaction, and the connection is read in a short query of its own before
 * the vendor is called, so no database connection is held while it answers. Call these
 * with no transaction open (a consumer's `prepare`, a route with `transactional: false`).
 */
export interface FlowActions {
  /** The tenant's connection, or null when it has none with this uuid. */
  connection(connectionUuid: string): Promise<FlowConnectionInfo | null>;
  /**
   * Runs `actionKey` of `appUid` with `input`, validated against the action's schema
   * first (a ValidationError with paths `input.<member>`), and answers its output as JSON.
   * Throws when the app or action is not installed, the action is not external or
   * branches, the connection is missing, another app's, or must be authorized again
   * (ConnectionNeedsReauth); what the action throws (a VendorError) is thrown as it is.
   */
  run(appUid: string, actionKey: string, connectionUuid: string | null, input: Record<string, unknown>, options?: FlowActionRunOptions): Promise<unknown>;
  /**
   * One option list of the app, whole (a searchable one: its first page), for picking a
   * value in code (a calendar). Throws ConnectionNeedsReauth, or an Error with the
   * list's message when it answers `unavailable`.
   */
  options(appUid: string, kind: string, connectionUuid: string | null, params?: Record<string, unknown>): Promise<FlowOption[]>;
}

export const flowActionsRef = createServiceRef<FlowActions>('flows.actions');

/** The flows plugin's runtime, set in its init (the catalog and token keeper are built there); the service reads it when called. */
export interface FlowsRuntimeSlot {
  set(runtime: FlowsRuntime): void;
  get(): FlowsRuntime;
}

/** Internal to the flows plugin: how its init hands the runtime to `flowActionsRef`'s factory. */
export const flowsRuntimeSlotRef = createServiceRef<FlowsRuntimeSlot>('flows.runtimeSlot');

export function flowsRuntimeSlot(): FlowsRuntimeSlot {
  let held: FlowsRuntime | null = null;
  return {
    set(runtime) {
      held = runtime;
    },
    get() {
      if (!held) throw new Error('the flows plugin has not been initialised');
      return held;
    },
  };
}

/** A JSON copy of the output, as the engine stores it (a Date becomes its ISO text). */
function asJson(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

export function createFlowActions(slot: FlowsRuntimeSlot): FlowActions {
  /** A fresh EntityManager outside any transaction: its reads run on a pooled connection returned at once. */
  const freshEm = (runtime: FlowsRuntime) => runtime.orm.em.fork() as EntityManager;

  /** The app's connection, decrypted for the call about to use it; throws what a caller should hear. */
  async function open(runtime: FlowsRuntime, em: EntityManager, tenant: TenantRef, appUid: string, connectionUuid: string | null): Promise<FlowConnectionValue | null> {
    const app = runtime.catalog.app(appUid);
    if (!app) throw new Error(`The flow app "${appUid}" is not installed`);
    if (app.category === 'builtin') {
      if (connectionUuid !== null) throw new Error(`"${app.name}" is a builtin app and takes no connection`);
      return null;
    }
    if (connectionUuid === null) throw new Error(`"${app.name}" needs one of its connections`);
    const row = await em.findOne(FlowConnection, { uuid: connectionUuid, tenantUuid: tenant.uuid });
    if (!row) throw new Error(`App connection ${connectionUuid} does not exist`);
    if (row.appUid !== appUid) throw new Error(`App connection ${connectionUuid} is a connection of "${row.appUid}", not of "${appUid}"`);
    return usableConnection(runtime.secrets, tenant.uuid, row);
  }

  function runnable(runtime: FlowsRuntime, appUid: string, actionKey: string, version: number | undefined): FlowActionDefinition {
    const action = runtime.catalog.action(appUid, actionKey, version);
    if (!action) {
      if (!runtime.catalog.app(appUid)) throw new Error(`The flow app "${appUid}" is not installed`);
      throw new Error(`The flow app "${appUid}" has no action "${actionKey}"${version === undefined ? '' : ` at version ${version}`}`);
    }
    // A non-external action expects the engine's transaction around it; a branching one, an execution to branch.
    const external = action.external ?? runtime.catalog.app(appUid)?.category === 'connect';
    if (!external) throw new Error(`${appUid}.${actionKey} does not call another system: only external actions run outside a flow`);
    if (action.branches) throw new Error(`${appUid}.${actionKey} chooses a branch: it runs only in a flow`);
    return action;
  }

  return {
    async connection(connectionUuid) {
      const runtime = slot.get();
      const tenant = runtime.tenants.require();
      const row = await freshEm(runtime).findOne(FlowConnection, { uuid: connectionUuid, tenantUuid: tenant.uuid }, { fields: ['appUid', 'label', 'status'] });
      return row ? { uuid: row.uuid, app_uid: row.appUid, label: row.label, status: row.status } : null;
    },

    async run(appUid, actionKey, connectionUuid, input, options = {}) {
      const runtime = slot.get();
      const tenant = runtime.tenants.require();
      const action = runnable(runtime, appUid, actionKey, options.version);
      const problems = validateConfig(action.input, input, { basePath: 'input', atRunTime: true });
      if (Object.keys(problems).length > 0) throw new ValidationError(problems, `Invalid input for ${appUid}.${actionKey}: ${Object.keys(problems).join(', ')}`);
      const em = freshEm(runtime);
      const connection = await open(runtime, em, tenant, appUid, connectionUuid);
      const output = await action.run({
        tenant,
        em,
        egress: runtime.egress,
        logger: runtime.logger.child({ flow_app: appUid, flow_action: actionKey, connection_uuid: connectionUuid }),
        input,
        connection,
        http: engineHttp(runtime, runtime.catalog.app(appUid)?.auth, connection),
        agentUuid: null,
        step: { flowUuid: '', stepUuid: '', versionUuid: null },
        executionUuid: null,
        idempotencyKey: options.idempotencyKey ?? `call:${randomUUID()}`,
        branch() {
          throw new Error(`${appUid}.${actionKey} chose a branch outside a flow`);
        },
        pause() {
          throw new Error(`${appUid}.${actionKey} cannot pause outside a flow`);
        },
      });
      return asJson(output);
    },

    async options(appUid, kind, connectionUuid, params = {}) {
      const runtime = slot.get();
      const tenant = runtime.tenants.require();
      const provider = runtime.catalog.options(appUid, kind);
      if (!provider) throw new Error(`The flow app "${appUid}" has no option list "${kind}"`);
      const problems = validateConfig(provider.params, params, { basePath: 'params', atRunTime: true });
      if (Object.keys(problems).length > 0) throw new ValidationError(problems);
      const em = freshEm(runtime);
      const connection = await open(runtime, em, tenant, appUid, connectionUuid);
      const result = await provider.load({
        tenant,
        em,
        egress: runtime.egress,
        logger: runtime.logger.child({ flow_app: appUid, options_kind: kind }),
        http: engineHttp(runtime, runtime.catalog.app(appUid)?.auth, connection),
        connection,
        params,
        search: null,
        cursor: null,
      });
      if ('state' in result) throw new Error(result.message);
      return result.options.map(({ label, value }) => ({ label, value }));
    },
  };
}
