/**
 * `{{stepN.path}}` references inside step configs. Clients read and write them by
 * position (`{{step2.body.items[0].id}}`); the database keeps them by step uuid
 * (`{{#<uuid>.body.items[0].id}}`), so inserting or deleting a step changes no stored
 * config, and every reference renders under the step's new number on the way out.
 * Rendering for a run is a path lookup: no user string is ever evaluated as code.
 */

/** Any `{{ ... }}` expression in a string. */
const EXPRESSION = /\{\{([^{}]*)\}\}/g;
/** A reference as clients write it: `step<N>` then `.member` or `[index]` segments. */
const PUBLIC_REFERENCE = /^\s*step(\d+)((?:\.[A-Za-z0-9_$-]+|\[\d+\])*)\s*$/;
/** A reference as stored. */
const STORED_REFERENCE = /\{\{#([0-9a-f-]{36})((?:\.[A-Za-z0-9_$-]+|\[\d+\])*)\}\}/g;
const WHOLE_STORED_REFERENCE = /^\{\{#([0-9a-f-]{36})((?:\.[A-Za-z0-9_$-]+|\[\d+\])*)\}\}$/;

/** How a dangling reference (to a deleted step) reads: it is no step number, so sending it back is refused until fixed. */
export const DELETED_STEP = 'deleted_step';

export type ConfigErrors = Record<string, string[]>;

function addError(errors: ConfigErrors, path: string, message: string) {
  (errors[path] ??= []).push(message);
}

/** Applies `fn` to every string inside a JSON value, keeping the shape; `path` is dotted (`headers.0.value`). */
function mapStrings(value: unknown, path: string, fn: (text: string, path: string) => unknown): unknown {
  if (typeof value === 'string') return fn(value, path);
  if (Array.isArray(value)) return value.map((item, index) => mapStrings(item, `${path}.${index}`, fn));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) out[key] = mapStrings(member, `${path}.${key}`, fn);
    return out;
  }
  return value;
}

/** What a reference to step N resolves to when stored: the step's uuid, or why it may not be used. */
export type ResolveStep = (position: number) => { uuid: string } | { error: string };

/**
 * Converts a config as a client sent it into its stored form. Every `{{...}}` must be a
 * reference to a step this one may use; problems are reported per dotted path under
 * `basePath` (`config.url`), all at once.
 */
export function storeReferences(config: Record<string, unknown>, resolve: ResolveStep, basePath = 'config'): { config: Record<string, unknown>; errors: ConfigErrors } {
  const errors: ConfigErrors = {};
  const stored = mapStrings(config, basePath, (text, path) =>
    text.replace(EXPRESSION, (whole, expression: string) => {
      const match = PUBLIC_REFERENCE.exec(expression);
      if (!match) {
        addError(errors, path, `"${whole}" is not a step reference: write {{stepN.path}}, e.g. {{step1.body.id}}`);
        return whole;
      }
      const target = resolve(Number(match[1]));
      if ('error' in target) {
        addError(errors, path, target.error);
        return whole;
      }
      return `{{#${target.uuid}${match[2]}}}`;
    }),
  ) as Record<string, unknown>;
  return { config: stored, errors };
}

/**
 * Renders a stored config for clients. A reference to a step that no longer exists
 * reads `{{deleted_step.path}}`, and its dotted path is listed in `dangling`.
 */
export function publicReferences(config: Record<string, unknown>, positionOf: (uuid: string) => number | undefined): { config: Record<string, unknown>; dangling: string[] } {
  const dangling: string[] = [];
  const rendered = mapStrings(config, '', (text, path) =>
    text.replace(STORED_REFERENCE, (_whole, uuid: string, rest: string) => {
      const position = positionOf(uuid);
      if (position === undefined) {
        dangling.push(path.slice(1));
        return `{{${DELETED_STEP}${rest}}}`;
      }
      return `{{step${position}${rest}}}`;
    }),
  ) as Record<string, unknown>;
  return { config: rendered, dangling };
}

/** The uuids of the steps a stored config refers to. */
export function referencedSteps(config: unknown): Set<string> {
  const found = new Set<string>();
  mapStrings(config, '', (text) => {
    for (const match of text.matchAll(STORED_REFERENCE)) found.add(match[1]);
    return text;
  });
  return found;
}

/** Whether a stored string holds a reference (its value is only known at run time). */
export function holdsReference(value: unknown): boolean {
  return typeof value === 'string' && value.search(STORED_REFERENCE) !== -1;
}

/** `.a.b[0]` -> `['a', 'b', '0']` */
function segments(path: string): string[] {
  return path.split(/[.[\]]/).filter((segment) => segment !== '');
}

/** Looks a path up in a step's output, own members only (no prototype walking). */
export function lookup(value: unknown, path: string): { found: boolean; value: unknown } {
  let current = value;
  for (const segment of segments(path)) {
    if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, segment)) return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[segment];
  }
  return { found: true, value: current };
}

/** A step's output by uuid; `found: false` for a step that has not run in this execution. */
export type OutputOf = (stepUuid: string) => { found: boolean; value: unknown };

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Renders a stored config for a run. A string that is exactly one reference becomes
 * the referenced value with its own type (a number stays a number, an object an
 * object); a reference inside longer text is interpolated as text (objects as JSON).
 * What did not run or does not exist renders as null, or as empty text inside text.
 */
export function renderConfig(config: Record<string, unknown>, outputOf: OutputOf): Record<string, unknown> {
  const resolve = (uuid: string, path: string) => {
    const output = outputOf(uuid);
    return output.found ? lookup(output.value, path) : { found: false, value: undefined };
  };
  return mapStrings(config, '', (text) => {
    const whole = WHOLE_STORED_REFERENCE.exec(text);
    if (whole) {
      const hit = resolve(whole[1], whole[2]);
      return hit.found && hit.value !== undefined ? hit.value : null;
    }
    return text.replace(STORED_REFERENCE, (_match, uuid: string, path: string) => asText(resolve(uuid, path).value));
  }) as Record<string, unknown>;
}
