import type { EntityManager } from '@mikro-orm/postgresql';
import { coreServices, newUuid, ValidationError, type Egress, type FieldErrors, type Logger, type TenantRef, type TenantService, type TSchema } from '../../../core';
import { captureLogger, type TestKernel } from '../../../core/testing';
import { describeScope, flowAppDepsRef, type DepsScope, type FlowAppDepsRegistry } from '../app/app-deps';
import type { FlowConnectionValue, FlowStepRef } from '../app/flow-app';
import { connectionHttp, type ConnectionHttp, type TokenKeeper } from '../connections/connection-http';
import { memoryTokens } from '../connections/memory-tokens';
import type { ConfigReader } from '../connections/oauth-client';
import { validateConfig } from '../model/config-validation';
import { recordingEgress } from './recording-egress';

/** What every kit call (runAction, runTrigger, loadOptions) takes besides its input. */
export interface AppCallOptions {
  /**
   * A test kernel (`startTestKernel`): the call runs as its tenant (`tenant` to choose
   * another), in its database, through its egress client, with the app's deps as its
   * plugin provided them. Without one, app code gets no database (`em` throws when used).
   */
  kit?: TestKernel;
  tenant?: TenantRef;
  /** Default: the kit's egress client (loopback allowed: see startVendorServer), else a `recordingEgress()` with nothing scripted. */
  egress?: Egress;
  /** The step's connection, for a `connect` app: its credentials are checked against the app's `auth` schema. */
  connection?: { credentials: Record<string, unknown>; uuid?: string; label?: string } | null;
  /** The step's `agent_uuid`. */
  agentUuid?: string | null;
  /** `context.deps`: the services the app names in its `deps`. Default: what the app's plugin provided in `kit`. */
  deps?: Record<string, unknown>;
  /** runAction, runTrigger: the version of the action or trigger to run (DefinitionVersion); the newest the app lists by default. */
  version?: number;
  /** The step (flow, step and version uuids): random ones by default. */
  step?: Partial<FlowStepRef>;
  /**
   * Config values by key, read before the kit's config: an OAuth2 app's client id and
   * secret and the `{configKey}`s of its token URL, which `context.http` refreshes an
   * expired or refused access token with (the new tokens replace `connection.credentials`).
   */
  config?: Record<string, unknown>;
  /** Keeps an OAuth2 connection's tokens instead of the kit's in-memory keeper (to count or fail refreshes). */
  tokens?: TokenKeeper;
}

/** What app code is given in every context, and where it ran. */
export interface CallSetup {
  tenant: TenantRef;
  egress: Egress;
  logger: Logger;
  logs: Array<Record<string, unknown>>;
  connection: FlowConnectionValue | null;
  /** `context.http`: egress with the connection's credentials applied. */
  http: ConnectionHttp;
  agentUuid: string | null;
  step: FlowStepRef & { versionUuid: string };
  /** `{ deps }` when the scope names deps or the test gave some; spread into the context. */
  deps: { deps?: Readonly<Record<string, unknown>> };
}

/** The problems the flows plugin reports for a config (input, params) against its schema, as `ValidationError` paths: `config.url`. */
export function schemaProblems(schema: TSchema, value: unknown, basePath: string): FieldErrors {
  return validateConfig(schema, value, { basePath, atRunTime: true });
}

/**
 * What the flows plugin finds wrong with a config at run time, by path (`config.url`, or
 * `params.team` for an option list's params); `{}` when it is valid. For tests of an
 * input schema alone; runAction, runTrigger and loadOptions throw these as a 422.
 */
export function inputProblems(definition: { input: TSchema } | { params: TSchema }, value: unknown): FieldErrors {
  return 'input' in definition ? schemaProblems(definition.input, value, 'config') : schemaProblems(definition.params, value, 'params');
}

/** Throws one 422-style ValidationError with every problem, as the API would answer them. */
export function refuse(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** The builder's rules for a step's connection and agent (a connect app needs a connection, a builtin app takes none; an agent app needs the agent). */
function checkStepRefs(scope: DepsScope, options: AppCallOptions): FieldErrors {
  const errors: FieldErrors = {};
  if (!('uid' in scope)) return errors;
  const add = (path: string, message: string) => (errors[path] ??= []).push(message);
  if (scope.category === 'connect' && !options.connection) add('connection', `is required: "${scope.name}" is a connect app (pass { connection: { credentials } })`);
  if (scope.category === 'builtin' && options.connection) add('connection', `must be null: "${scope.name}" is a builtin app and takes no connection`);
  if (scope.auth && options.connection) Object.assign(errors, schemaProblems(scope.auth.schema, options.connection.credentials, 'connection.credentials'));
  if (scope.requiresAgent && !options.agentUuid) add('agent_uuid', `is required: the actions of "${scope.name}" work on an agent`);
  return errors;
}

function depsOf(scope: DepsScope, options: AppCallOptions): CallSetup['deps'] {
  if (options.deps) return { deps: Object.freeze({ ...options.deps }) };
  const named = Object.keys(scope.deps ?? {});
  if (named.length === 0) return {};
  if (!options.kit) throw new Error(`${describeScope(scope)} names deps (${named.join(', ')}): pass { deps } or a { kit } whose plugins contribute it`);
  return { deps: options.kit.kernel.container.resolve<FlowAppDepsRegistry>(flowAppDepsRef.id).of(scope) };
}

/** Config by key: the test's own values first, then the app's own config (its `deps.config`); undefined for a key neither has. */
function configReader(options: AppCallOptions, deps: CallSetup['deps']): ConfigReader {
  const appConfig = deps.deps?.config as { get(key: string): unknown } | undefined;
  return (key) => {
    if (options.config && key in options.config) return options.config[key];
    try {
      return appConfig?.get(key);
    } catch {
      return undefined;
    }
  };
}

/** Checks the step's references and builds what every context holds; throws the 422 of everything wrong with `inputProblems` and them. */
export function setUpCall(scope: DepsScope, options: AppCallOptions, inputProblems: FieldErrors): CallSetup {
  refuse({ ...inputProblems, ...checkStepRefs(scope, options) });
  const { logger, lines } = captureLogger();
  const connection = options.connection ? { uuid: options.connection.uuid ?? newUuid(), label: options.connection.label ?? 'Test connection', credentials: options.connection.credentials } : null;
  const egress = options.egress ?? options.kit?.kernel.egress ?? recordingEgress();
  const auth = 'uid' in scope ? scope.auth : undefined;
  const deps = depsOf(scope, options);
  return {
    tenant: options.tenant ?? options.kit?.tenant ?? { uuid: newUuid(), slug: 'acme', name: 'Acme' },
    egress,
    logger,
    logs: lines,
    connection,
    http: connectionHttp({ egress, auth, connection, tokens: options.tokens ?? memoryTokens(auth, egress, configReader(options, deps)) }),
    agentUuid: options.agentUuid ?? null,
    step: { flowUuid: options.step?.flowUuid ?? newUuid(), stepUuid: options.step?.stepUuid ?? newUuid(), versionUuid: options.step?.versionUuid ?? newUuid() },
    deps,
  };
}

/** An EntityManager for code run without a kit: any use says how to give it a database. */
const noDatabase = new Proxy({} as EntityManager, {
  get(_target, member) {
    throw new Error(`app code used the database (em.${String(member)}) but the call has none: pass { kit } (startTestKernel with the app's plugins)`);
  },
});

/**
 * Runs `fn` as the engine runs app code: as the tenant, on an EntityManager of the kit's
 * database, inside a transaction (committed when `fn` returns) unless `transaction` is
 * false (a poll reads with none open). Without a kit, `fn` gets an EntityManager that refuses use.
 */
export function inTenant<T>(kit: TestKernel | undefined, tenant: TenantRef, transaction: boolean, fn: (em: EntityManager) => Promise<T>): Promise<T> {
  if (!kit) return fn(noDatabase);
  const tenants = kit.kernel.container.resolve<TenantService>(coreServices.tenant.id);
  const em = kit.kernel.orm.em.fork() as EntityManager;
  return tenants.run(tenant, () => (transaction ? em.transactional((inner) => fn(inner as EntityManager)) : fn(em)));
}

/** A value as the engine stores it (JSON): what later steps read. Throws for what JSON cannot hold, as the engine fails the step. */
export const asStored = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value) ?? 'null'));
