import type { FieldErrors } from '../../../core';
import type { TemplateParameters } from '../entities/chatapp-template.entity';
import { sendParameter, valueErrors } from './template-values';

/**
 * A template's placeholders and the values a send fills them with. The platform numbers
 * them `{{1}}`, `{{2}}` (or names them `{{first_name}}` in templates of the named
 * format) in the text of the HEADER and BODY components; a send must give exactly as
 * many values per component, in order, or the platform refuses it.
 */

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** The distinct placeholders of one text, in order of first appearance. */
export function placeholdersOf(text: string): string[] {
  const seen: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) if (!seen.includes(match[1])) seen.push(match[1]);
  return seen;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The text components (`header`, `body`) with their placeholders, as the platform describes the template's components. */
function textComponents(components: readonly unknown[]): Array<{ type: 'header' | 'body'; names: string[] }> {
  const found: Array<{ type: 'header' | 'body'; names: string[] }> = [];
  for (const component of components) {
    if (!isRecord(component) || typeof component.type !== 'string' || typeof component.text !== 'string') continue;
    const type = component.type.toLowerCase();
    if (type === 'header' || type === 'body') found.push({ type, names: placeholdersOf(component.text) });
  }
  return found;
}

/** How many values each component takes (`{body: 2}`); components without placeholders are left out. */
export function parametersOf(components: readonly unknown[]): TemplateParameters {
  const parameters: TemplateParameters = {};
  for (const { type, names } of textComponents(components)) if (names.length > 0) parameters[type] = names.length;
  return parameters;
}

/**
 * `variables` as a task gives them: a list (the body's values, for a template whose only
 * placeholders are in its body) or `{header?: [...], body?: [...]}`; values are strings
 * or numbers (text), or, in the body, the Cloud API's own currency and date_time
 * parameters (template-values.ts). Normalised to lists per component, or null when the
 * shape is wrong.
 */
export function variablesByComponent(variables: unknown): Record<string, unknown[]> | null {
  if (variables === undefined || variables === null) return {};
  if (Array.isArray(variables)) return { body: variables };
  if (!isRecord(variables)) return null;
  const byComponent: Record<string, unknown[]> = {};
  for (const [key, values] of Object.entries(variables)) {
    if (!Array.isArray(values)) return null;
    byComponent[key] = values;
  }
  return byComponent;
}

/** Whether `variables` fill the template's placeholders exactly; each problem at `<path>` or `<path>.<component>[.<index>]`. */
export function variableErrors(parameters: TemplateParameters, variables: unknown, path: string): FieldErrors {
  const errors: FieldErrors = {};
  const add = (at: string, message: string) => void (errors[at] ??= []).push(message);
  const given = variablesByComponent(variables);
  if (!given) {
    add(path, 'must be a list of values (the body’s placeholders) or an object {header?: [...], body?: [...]}');
    return errors;
  }
  for (const key of Object.keys(given)) if (!(key in parameters)) add(`${path}.${key}`, `the template has no placeholders in a ${key} component`);
  for (const [component, count] of Object.entries(parameters)) {
    const values = given[component] ?? [];
    if (values.length !== count) add(Array.isArray(variables) ? path : `${path}.${component}`, `must have ${count} value${count === 1 ? '' : 's'} for the template’s ${component} (${values.length} given)`);
    values.forEach((value, index) => valueErrors(component, value, `${Array.isArray(variables) ? path : `${path}.${component}`}.${index}`, add));
  }
  return errors;
}

/**
 * The `components` of a template send: one entry per component with placeholders, its
 * values as parameters in order (text, or the body's currency and date_time ones; named
 * placeholders carry their `parameter_name`). Call after `variableErrors` found none.
 */
export function sendComponents(templateComponents: readonly unknown[], variables: unknown): Array<Record<string, unknown>> {
  const given = variablesByComponent(variables) ?? {};
  return textComponents(templateComponents)
    .filter(({ names }) => names.length > 0)
    .map(({ type, names }) => ({
      type,
      parameters: names.map((name, index) => ({
        ...sendParameter(given[type]?.[index]),
        ...(/^\d+$/.test(name) ? {} : { parameter_name: name }),
      })),
    }));
}
