/**
 * The comparisons of `if_condition`, defined on JSON values (what step outputs are) and
 * evaluated by plain functions: a condition never runs user text as code.
 *
 * How values compare:
 * - A number and a numeric text (`5` and `"5"`, `"2.5e3"`) compare as numbers: references
 *   inside longer text and query strings render numbers as text. Two texts compare as
 *   texts, so `"01234"` does not equal `"1234"`.
 * - A boolean and the text `"true"`/`"false"` (any case) compare as booleans.
 * - `null` (also what a reference to a missing value renders as) equals only `null`.
 * - Objects and arrays are equal when they hold equal members (key order aside).
 * - Text comparisons are case-sensitive.
 * - Ordering (`greater_than`, ...): numbers (or numeric texts) by value; two other texts
 *   character by character, so ISO 8601 timestamps written the same way (e.g. both in
 *   UTC) compare in time order. Anything else (null, objects, a number and a word) is
 *   not ordered, and every ordering operator is false for it.
 */

export interface OperatorInfo {
  value: string;
  label: string;
  /** Needs `right`; the others test `left` alone. */
  binary: boolean;
}

export const OPERATORS = [
  { value: 'equals', label: 'is equal to', binary: true },
  { value: 'not_equals', label: 'is not equal to', binary: true },
  { value: 'contains', label: 'contains (text: substring; list: an equal item; object: the key)', binary: true },
  { value: 'not_contains', label: 'does not contain', binary: true },
  { value: 'starts_with', label: 'starts with', binary: true },
  { value: 'ends_with', label: 'ends with', binary: true },
  { value: 'greater_than', label: 'is greater than', binary: true },
  { value: 'greater_or_equal', label: 'is greater than or equal to', binary: true },
  { value: 'less_than', label: 'is less than', binary: true },
  { value: 'less_or_equal', label: 'is less than or equal to', binary: true },
  { value: 'is_empty', label: 'is empty (null, "", [] or {})', binary: false },
  { value: 'is_not_empty', label: 'is not empty', binary: false },
  { value: 'is_true', label: 'is true (true or "true")', binary: false },
  { value: 'is_false', label: 'is false (false or "false")', binary: false },
] as const satisfies readonly OperatorInfo[];

export type Operator = (typeof OPERATORS)[number]['value'];

export const BINARY_OPERATORS: readonly Operator[] = OPERATORS.filter((operator) => operator.binary).map((operator) => operator.value);

export const JOINERS = [
  { value: 'and', label: 'all conditions hold (and)' },
  { value: 'or', label: 'any condition holds (or)' },
] as const;

export type Joiner = (typeof JOINERS)[number]['value'];

const DECIMAL = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && DECIMAL.test(value)) return Number(value);
  return null;
}

function booleanOf(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  return null;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameJson(a[key], b[key]));
  }
  return a === b;
}

export function equals(left: unknown, right: unknown): boolean {
  left ??= null;
  right ??= null;
  if (left === null || right === null) return left === right;
  if (typeof left === 'number' || typeof right === 'number') {
    const [a, b] = [numberOf(left), numberOf(right)];
    return a !== null && b !== null && a === b;
  }
  if (typeof left === 'boolean' || typeof right === 'boolean') {
    const [a, b] = [booleanOf(left), booleanOf(right)];
    return a !== null && a === b;
  }
  return sameJson(left, right);
}

/** Negative, zero or positive; null when the two are not ordered. */
function order(left: unknown, right: unknown): number | null {
  const [a, b] = [numberOf(left), numberOf(right)];
  if (a !== null && b !== null) return a - b;
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  return null;
}

/** Numbers and booleans read as their text for the text operators; null and structures have none. */
function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

function contains(left: unknown, right: unknown): boolean {
  if (Array.isArray(left)) return left.some((item) => equals(item, right));
  const needle = textOf(right);
  if (needle === null) return false;
  if (isObject(left)) return Object.prototype.hasOwnProperty.call(left, needle);
  const text = textOf(left);
  return text !== null && text.includes(needle);
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

function affix(left: unknown, right: unknown, test: (text: string, affix: string) => boolean): boolean {
  const [text, part] = [textOf(left), textOf(right)];
  return text !== null && part !== null && test(text, part);
}

function ordered(left: unknown, right: unknown, test: (difference: number) => boolean): boolean {
  const difference = order(left, right);
  return difference !== null && test(difference);
}

const EVALUATE: Record<Operator, (left: unknown, right: unknown) => boolean> = {
  equals,
  not_equals: (left, right) => !equals(left, right),
  contains,
  not_contains: (left, right) => !contains(left, right),
  starts_with: (left, right) => affix(left, right, (text, part) => text.startsWith(part)),
  ends_with: (left, right) => affix(left, right, (text, part) => text.endsWith(part)),
  greater_than: (left, right) => ordered(left, right, (d) => d > 0),
  greater_or_equal: (left, right) => ordered(left, right, (d) => d >= 0),
  less_than: (left, right) => ordered(left, right, (d) => d < 0),
  less_or_equal: (left, right) => ordered(left, right, (d) => d <= 0),
  is_empty: (left) => isEmpty(left),
  is_not_empty: (left) => !isEmpty(left),
  is_true: (left) => booleanOf(left) === true,
  is_false: (left) => booleanOf(left) === false,
};

export interface Condition {
  left?: unknown;
  operator: Operator;
  right?: unknown;
}

export function holds(condition: Condition): boolean {
  return EVALUATE[condition.operator](condition.left ?? null, condition.right ?? null);
}
