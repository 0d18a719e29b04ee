import { isDeepStrictEqual } from 'node:util';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { BootError, type TSchema } from '../../../core';
import { describeScope, type DepsScope } from './app-deps';
import { checkAuth } from './auth';
import type { FlowAppDefinition, FlowAppExtension } from './flow-app';
import { FlowCatalog } from './flow-catalog';
import { checkOptionLinks } from './option-link';
import { checkTriggerSources } from './trigger-sources';

/** What went wrong, as a sentence: a boot error's own words, anything else after `what`. */
function problemOf(what: string, error: unknown): string {
  if (error instanceof BootError) return error.message;
  return `${what}: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * A compiler with the options of the flows plugin's (model/config-validation.ts), whose
 * warnings are kept: what ajv only warns about there (an unknown format, which then
 * accepts anything) is a problem here.
 */
function schemaCompiler(): (schema: TSchema) => string[] {
  let warnings: string[] = [];
  const keep = (...parts: unknown[]) => warnings.push(parts.map(String).join(' '));
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false, logger: { log: () => {}, warn: keep, error: keep } });
  addFormats(ajv);
  return (schema) => {
    warnings = [];
    try {
      ajv.compile(schema);
    } catch (error) {
      warnings.push(error instanceof Error ? error.message : String(error));
    }
    return warnings;
  };
}

/** Each schema of a scope, named (an unknown keyword or format, a bad `$ref` show when it compiles). */
function schemasOf(scope: DepsScope): Array<{ what: string; schema: TSchema }> {
  const owner = describeScope(scope);
  return [
    ...('uid' in scope && scope.auth ? [{ what: `${owner}: its auth schema`, schema: scope.auth.schema }] : []),
    ...(scope.triggers ?? []).map((trigger) => ({ what: `${owner}: trigger "${trigger.key}": its input schema`, schema: trigger.input })),
    ...(scope.actions ?? []).map((action) => ({ what: `${owner}: action "${action.key}": its input schema`, schema: action.input })),
    ...(scope.options ?? []).map((provider) => ({ what: `${owner}: options kind "${provider.kind}": its params schema`, schema: provider.params })),
  ];
}

/** An output sample is what the catalog shows and what `{{stepN...}}` references are built from: JSON, as the engine stores an output. */
function sampleProblems(scope: DepsScope): string[] {
  const owner = describeScope(scope);
  const definitions = [
    ...(scope.triggers ?? []).map((trigger) => ({ what: `trigger "${trigger.key}"`, sample: trigger.outputSample as unknown })),
    ...(scope.actions ?? []).map((action) => ({ what: `action "${action.key}"`, sample: action.outputSample as unknown })),
  ];
  return definitions.flatMap(({ what, sample }) => {
    if (sample === undefined) return [`${owner}: ${what} has no outputSample`];
    let stored: unknown;
    try {
      stored = JSON.parse(JSON.stringify(sample));
    } catch (error) {
      return [problemOf(`${owner}: ${what}: its outputSample is not JSON`, error)];
    }
    return isDeepStrictEqual(stored, sample) ? [] : [`${owner}: ${what}: its outputSample changes when stored as JSON (a Date, an undefined member, a class instance): write it as JSON`];
  });
}

/**
 * What `switchboard plugin check` finds wrong with the installed flow apps, with no
 * database: the catalog's boot checks for each app together with what extends it (auth,
 * keys, option links, trigger sources, deps), every schema compiled, every output sample
 * JSON. Each problem names the app and the trigger, action or list.
 */
export function flowAppProblems(apps: readonly FlowAppDefinition[], extensions: readonly FlowAppExtension[]): string[] {
  const problems: string[] = [];
  const attempt = (what: string, check: () => void) => {
    try {
      check();
    } catch (error) {
      problems.push(problemOf(what, error));
    }
  };
  for (const app of apps) {
    const extending = extensions.filter((extension) => extension.app === app.uid);
    // Each check stops at its first problem: run apart, they report one each; the catalog then adds what they do not check.
    const scopes = [app, ...extending];
    const merged = {
      ...app,
      triggers: scopes.flatMap((scope) => scope.triggers ?? []),
      actions: scopes.flatMap((scope) => scope.actions ?? []),
      options: scopes.flatMap((scope) => scope.options ?? []),
    };
    for (const check of [checkAuth, checkOptionLinks, checkTriggerSources]) attempt(describeScope(app), () => check(merged));
    attempt(describeScope(app), () => new FlowCatalog([app], extending));
  }
  for (const orphan of extensions.filter((extension) => !apps.some((app) => app.uid === extension.app))) attempt(describeScope(orphan), () => new FlowCatalog([], [orphan]));
  const compile = schemaCompiler();
  for (const scope of [...apps, ...extensions]) {
    for (const { what, schema } of schemasOf(scope)) problems.push(...compile(schema).map((warning) => `${what} does not compile: ${warning}`));
    problems.push(...sampleProblems(scope));
  }
  return [...new Set(problems)];
}
