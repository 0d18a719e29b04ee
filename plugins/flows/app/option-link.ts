import type { TString } from '@sinclair/typebox';
import { BootError, Type, type TSchema } from '../../../core';

/** The JSON Schema keyword that ties an input field to one of its app's option lists. */
export const OPTIONS_KEYWORD = 'x-options';

/**
 * What `x-options` says of a field: its value is picked from the option list `kind`,
 * loaded with `params`. A string of `params` may hold `{{config.x}}`, the current value
 * of the member `x` of the same step's config; `dependsOn` names those members, so a
 * client reloads the list when one changes and leaves it empty while one is unset
 * (Activepieces' dropdown `refreshers`, n8n's `loadOptionsDependsOn`).
 */
export interface OptionLink {
  kind: string;
  params: Record<string, unknown>;
  dependsOn: string[];
}

const CONFIG_REFERENCE = /\{\{\s*config\.([A-Za-z_][A-Za-z0-9_]*)[^}]*\}\}/g;

/** The config members the `{{config.x}}` references of `value` name, each once, in order of appearance. */
function referencedMembers(value: unknown, found: string[] = []): string[] {
  if (typeof value === 'string') {
    for (const match of value.matchAll(CONFIG_REFERENCE)) if (!found.includes(match[1])) found.push(match[1]);
  } else if (Array.isArray(value)) {
    for (const item of value) referencedMembers(item, found);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) referencedMembers(item, found);
  }
  return found;
}

/**
 * An input field whose value is picked from the app's option list `kind`:
 * `Options('columns', { params: { table_id: '{{config.table_id}}' } }, ColumnRef('The column'))`.
 * Wraps a string schema (one choice; `Type.String()` when none is given) or an array of
 * strings (several choices), whose type it keeps. The catalog boot refuses a link to a
 * list the app does not have, or a `{{config.x}}` that is not a member of the same input.
 */
export function Options<S extends TSchema = TString>(kind: string, link: { params?: Record<string, unknown> } = {}, schema?: S): S {
  const params = link.params ?? {};
  const options: OptionLink = { kind, params, dependsOn: referencedMembers(params) };
  return { ...(schema ?? Type.String()), [OPTIONS_KEYWORD]: options } as S;
}

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A field that holds one option value, or several: a string, an array of strings, either of them or null. */
function holdsOptionValues(schema: Schema): boolean {
  const types = (schema: Schema): unknown[] => (Array.isArray(schema.type) ? schema.type : [schema.type]);
  const isString = (schema: unknown) => isObject(schema) && types(schema).every((type) => type === 'string' || type === 'null') && types(schema).includes('string');
  const isStringArray = (schema: unknown) => isObject(schema) && schema.type === 'array' && isString(schema.items);
  const alternatives = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (alternatives) return alternatives.every((alternative) => isObject(alternative) && (alternative.type === 'null' || holdsOptionValues(alternative)));
  return isString(schema) || isStringArray(schema);
}

/** Every `x-options` of a schema, with the path of its field (`filters[].column`). */
export function optionLinksOf(schema: TSchema): Array<{ field: string; schema: Schema; link: OptionLink }> {
  const found: Array<{ field: string; schema: Schema; link: OptionLink }> = [];
  const join = (path: string, name: string) => (path ? `${path}.${name}` : name);
  const walk = (node: unknown, path: string) => {
    if (!isObject(node)) return;
    const link = node[OPTIONS_KEYWORD];
    if (link !== undefined) found.push({ field: path || '(the input itself)', schema: node, link: link as OptionLink });
    if (isObject(node.properties)) for (const [name, child] of Object.entries(node.properties)) walk(child, join(path, name));
    if (isObject(node.items)) walk(node.items, `${path}[]`);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties, join(path, '*'));
    for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
      if (Array.isArray(node[keyword])) for (const alternative of node[keyword] as unknown[]) walk(alternative, path);
    }
  };
  walk(schema, '');
  return found;
}

/** The parts of an app the links are checked against (a plain structural type, so this file needs nothing of flow-app.ts). */
interface LinkedApp {
  uid: string;
  triggers?: Array<{ key: string; input: TSchema }>;
  actions?: Array<{ key: string; input: TSchema }>;
  options?: Array<{ kind: string; params: TSchema }>;
}

/** Problems of one link, as sentences; none when the studio can use it. */
function linkProblems(app: LinkedApp, input: TSchema, field: { schema: Schema; link: OptionLink }): string[] {
  const { link } = field;
  const lists = app.options ?? [];
  const provider = lists.find((candidate) => candidate.kind === link.kind);
  if (!provider) {
    const known = lists.length > 0 ? `it has ${lists.map((candidate) => candidate.kind).join(', ')}` : 'it has none';
    return [`names the option list "${link.kind}", which the app does not have (${known})`];
  }
  const problems: string[] = [];
  if (!holdsOptionValues(field.schema)) problems.push('is linked to an option list but is neither a string nor an array of strings');
  const members = isObject((input as Schema).properties) ? Object.keys((input as Schema).properties as Schema) : [];
  for (const name of referencedMembers(link.params)) {
    if (!members.includes(name)) problems.push(`refers to {{config.${name}}}, which is not a property of the same input`);
  }
  const paramsSchema = provider.params as Schema;
  const declared = isObject(paramsSchema.properties) ? Object.keys(paramsSchema.properties) : [];
  for (const name of (paramsSchema.required as string[] | undefined) ?? []) {
    if (!(name in link.params)) problems.push(`does not give the param "${name}" the option list "${link.kind}" requires`);
  }
  if (paramsSchema.additionalProperties === false) {
    for (const name of Object.keys(link.params)) if (!declared.includes(name)) problems.push(`gives the param "${name}", which the option list "${link.kind}" does not take`);
  }
  return problems;
}

/** Refuses at boot an `x-options` the studio could not follow, naming the app, the trigger or action and the field. */
export function checkOptionLinks(app: LinkedApp): void {
  const inputs = [
    ...(app.triggers ?? []).map((trigger) => ({ what: `trigger "${trigger.key}"`, input: trigger.input })),
    ...(app.actions ?? []).map((action) => ({ what: `action "${action.key}"`, input: action.input })),
  ];
  for (const { what, input } of inputs) {
    for (const field of optionLinksOf(input)) {
      const [problem] = linkProblems(app, input, field);
      if (problem) throw new BootError(`flow app "${app.uid}": ${what}: field "${field.field}" ${problem}`);
    }
  }
}
