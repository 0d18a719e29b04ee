import { OPERATORS, holds, type Operator } from '../../../plugins/app-logic/conditions';

const test = (left: unknown, operator: Operator, right?: unknown) => holds({ left, operator, right });

describe('if_condition operators', () => {
  it('equals compares a number with a numeric text by value, two texts as texts, and booleans with "true"/"false"', () => {
    expect(test(5, 'equals', '5')).toBe(true);
    expect(test('5.0', 'equals', 5)).toBe(true);
    expect(test('01234', 'equals', '1234')).toBe(false); // a zip code is text
    expect(test('Ada', 'equals', 'ada')).toBe(false); // case-sensitive
    expect(test(true, 'equals', 'TRUE')).toBe(true);
    expect(test(false, 'equals', 'no')).toBe(false);
    expect(test(1, 'equals', true)).toBe(false);
    expect(test(5, 'equals', 'five')).toBe(false);
  });

  it('null equals only null (a missing reference renders as null), and structures compare by content', () => {
    expect(test(null, 'equals', null)).toBe(true);
    expect(test(undefined, 'equals', null)).toBe(true);
    expect(test(null, 'equals', '')).toBe(false);
    expect(test(null, 'equals', 0)).toBe(false);
    expect(test({ a: 1, b: [1, 2] }, 'equals', { b: [1, 2], a: 1 })).toBe(true);
    expect(test({ a: 1 }, 'equals', { a: 1, b: 2 })).toBe(false);
    expect(test([1, 2], 'equals', [2, 1])).toBe(false);
    expect(test({ a: 1 }, 'not_equals', { a: 2 })).toBe(true);
  });

  it('contains looks in texts, lists and object keys; not_contains is its negation', () => {
    expect(test('order shipped', 'contains', 'ship')).toBe(true);
    expect(test(12345, 'contains', 234)).toBe(true);
    expect(test(['a', 2, { x: 1 }], 'contains', '2')).toBe(true);
    expect(test(['a', 2, { x: 1 }], 'contains', { x: 1 })).toBe(true);
    expect(test({ vip: true }, 'contains', 'vip')).toBe(true);
    expect(test({ vip: true }, 'contains', 'toString')).toBe(false); // own members only
    expect(test(null, 'contains', 'x')).toBe(false);
    expect(test(null, 'not_contains', 'x')).toBe(true);
    expect(test('abc', 'not_contains', 'z')).toBe(true);
  });

  it('starts_with and ends_with read numbers as their text and are false for null and structures', () => {
    expect(test('+34 600', 'starts_with', '+34')).toBe(true);
    expect(test(2025, 'starts_with', 20)).toBe(true);
    expect(test('invoice.pdf', 'ends_with', '.pdf')).toBe(true);
    expect(test(null, 'starts_with', '')).toBe(false);
    expect(test(['a'], 'ends_with', 'a')).toBe(false);
  });

  it('orders numbers (and numeric texts) by value and other texts character by character, so UTC timestamps order in time', () => {
    expect(test('10', 'greater_than', '9')).toBe(true);
    expect(test(10, 'greater_than', '9.5')).toBe(true);
    expect(test(3, 'less_or_equal', 3)).toBe(true);
    expect(test(3, 'greater_or_equal', 4)).toBe(false);
    expect(test('2025-02-01T00:00:00Z', 'greater_than', '2025-01-31T23:59:59Z')).toBe(true);
    expect(test('b', 'less_than', 'a')).toBe(false);
  });

  it('does not order what has no order: null, structures, a number against a word (every ordering operator is false)', () => {
    for (const operator of ['greater_than', 'greater_or_equal', 'less_than', 'less_or_equal'] as const) {
      expect(test(null, operator, 1)).toBe(false);
      expect(test(1, operator, null)).toBe(false);
      expect(test({ a: 1 }, operator, { a: 1 })).toBe(false);
      expect(test(5, operator, 'five')).toBe(false);
    }
  });

  it('is_empty holds for null, "", [] and {} only; is_true and is_false accept booleans and their texts', () => {
    for (const empty of [null, undefined, '', [], {}]) expect(test(empty, 'is_empty')).toBe(true);
    for (const full of [' ', 0, false, [null], { a: null }]) expect(test(full, 'is_not_empty')).toBe(true);
    expect(test(true, 'is_true')).toBe(true);
    expect(test(' True ', 'is_true')).toBe(true);
    expect(test(1, 'is_true')).toBe(false);
    expect(test('false', 'is_false')).toBe(true);
    expect(test(null, 'is_false')).toBe(false);
  });

  it('never evaluates text as code', () => {
    const probe = '__conditionProbe';
    const code = `globalThis.${probe} = 1`;
    for (const { value } of OPERATORS) holds({ left: code, operator: value, right: `(() => { ${code} })()` });
    expect((globalThis as Record<string, unknown>)[probe]).toBeUndefined();
  });
});
