import type { FieldErrors } from './http-errors';

/** How deep a request's JSON may nest, unless HTTP_BODY_MAX_DEPTH says otherwise. */
export const DEFAULT_MAX_DEPTH = 64;

/** Enough to show a client what is wrong; a hostile body could otherwise make a huge 422. */
const MAX_PROBLEMS = 20;

/**
 * What no route can store, found once for every route before its schema is checked:
 * - strings or member names holding NUL: PostgreSQL text and jsonb cannot hold `\u0000`,
 *   and the database's refusal would surface as an error of ours, not the client's;
 * - lone UTF-16 surrogates: not Unicode, so they cannot be stored as sent either;
 * - nesting deeper than `maxDepth`: code that walks a value recursively (JSON.stringify
 *   included) overflows the stack a few thousand levels down.
 * It looks at every member, `Type.Unknown` and open objects included, which a schema
 * does not describe. Paths are dotted like the validator's (`items.0.name`); the root
 * is named by `source`. Recursion stops at `maxDepth`, so it cannot overflow itself.
 */
export function inspectInput(value: unknown, source: string, maxDepth: number): FieldErrors | null {
  if (value === null || typeof value !== 'object') {
    const problem = typeof value === 'string' ? textProblem(value) : undefined;
    return problem ? { [source]: [problem] } : null;
  }
  const problems: FieldErrors = Object.create(null);
  let count = 0;
  const add = (path: string, message: string) => {
    if (count++ < MAX_PROBLEMS) (problems[path || source] ??= []).push(message);
  };
  const walk = (current: object, path: string, depth: number): void => {
    if (depth > maxDepth) return add(path, `nests deeper than ${maxDepth} levels`);
    const isArray = Array.isArray(current);
    for (const key of Object.keys(current)) {
      if (count >= MAX_PROBLEMS) return;
      const member = path ? `${path}.${key}` : key;
      if (!isArray) {
        const keyProblem = textProblem(key);
        if (keyProblem) add(member, `member name ${keyProblem}`);
      }
      const inner = (current as Record<string, unknown>)[key];
      if (typeof inner === 'string') {
        const problem = textProblem(inner);
        if (problem) add(member, problem);
      } else if (inner !== null && typeof inner === 'object') {
        walk(inner, member, depth + 1);
      }
    }
  };
  walk(value, '', 1);
  return count === 0 ? null : problems;
}

/** Both checks are native scans: the common case costs two passes over the text. */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (!text.isWellFormed()) return 'must be valid Unicode (it holds a lone surrogate)';
  return undefined;
}
