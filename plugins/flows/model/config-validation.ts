import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '../../../core';
import { holdsReference, type ConfigErrors } from './references';

/**
 * Checks a step's stored config against its action's or trigger's input schema. A value
 * that holds a reference is only known at run time, so what the schema says about that
 * value itself (its type, format, enum) is not held against it while building; members
 * that are missing or unknown still are. The engine validates the rendered config again
 * before it runs the step.
 */
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });
addFormats(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

/** JSON pointer `/headers/0/value` -> the value it points at. */
function valueAt(root: unknown, pointer: string): unknown {
  let current = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function pathOf(error: ErrorObject, basePath: string): string {
  const segments = error.instancePath.split('/').slice(1).map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  return [basePath, ...segments].filter((segment) => segment !== '').join('.');
}

function messageOf(error: ErrorObject): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not a known member';
  return error.message ?? 'is invalid';
}

/** Problems of a config by dotted path (`config.url`); empty when it is valid. `atRunTime` holds references against it too. */
export function validateConfig(schema: TSchema, config: unknown, options: { basePath?: string; atRunTime?: boolean } = {}): ConfigErrors {
  const validate = validatorOf(schema);
  if (validate(config)) return {};
  const errors: ConfigErrors = {};
  for (const error of validate.errors ?? []) {
    if (!options.atRunTime && error.keyword !== 'required' && error.keyword !== 'additionalProperties' && holdsReference(valueAt(config, error.instancePath))) continue;
    // anyOf/oneOf report each alternative's failure too, and if/then adds a line of its own
    // beside the failing member's: the member's line is the useful one.
    if (error.schemaPath.includes('/anyOf/') || error.schemaPath.includes('/oneOf/') || error.keyword === 'if') continue;
    const path = pathOf(error, options.basePath ?? 'config');
    const list = (errors[path] ??= []);
    const message = messageOf(error);
    if (!list.includes(message)) list.push(message);
  }
  return errors;
}

/** One line for `status_message`: the first problems, by path. */
export function summarize(errors: ConfigErrors): string {
  return Object.entries(errors)
    .map(([path, messages]) => `${path} ${messages.join(', ')}`)
    .join('; ');
}
