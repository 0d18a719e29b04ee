import { checkValue, inferColumnType, parseCell, type CheckedValue, type ColumnType } from '../model/column-types';

/** Rows a column's type is inferred from, when the source does not say. */
export const TYPE_SAMPLE_ROWS = 1000;

const isEmpty = (cell: unknown) => cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');
const isObject = (cell: unknown) => typeof cell === 'object' && cell !== null && !(cell instanceof Date);

/** A date as text: the day alone when it is midnight UTC (how workbooks hold dates without a time). */
function dateText(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

/** A native cell as the text it reads as. */
const textOf = (cell: unknown): string => (cell instanceof Date ? dateText(cell) : isObject(cell) ? JSON.stringify(cell) : String(cell));

/**
 * The type a column's sample cells suggest. Text cells go through inferColumnType;
 * native values (from a workbook or JSON) count as what they are: all numbers make a
 * number column, all objects or arrays a json one; mixed ones are judged as text.
 */
export function inferCellType(cells: readonly unknown[]): ColumnType {
  const present = cells.filter((cell) => !isEmpty(cell));
  if (present.length === 0) return 'text';
  if (present.every((cell) => typeof cell === 'number')) return 'number';
  if (present.every((cell) => typeof cell === 'boolean')) return 'boolean';
  if (present.every((cell) => cell instanceof Date)) return 'date';
  if (present.every(isObject)) return 'json';
  if (present.some(isObject)) return 'text';
  return inferColumnType(present.map(textOf));
}

/**
 * A cell checked against its column's type: text through parseCell, native values as
 * they are when they fit (checkValue) and as their text otherwise (a number in a text
 * column becomes its digits, `1` in a boolean column true). An empty cell is null.
 */
export function cellValue(type: ColumnType, cell: unknown): CheckedValue {
  if (isEmpty(cell)) return { ok: true, value: null };
  if (typeof cell === 'string') return parseCell(type, cell);
  if (type === 'json') return checkValue('json', cell instanceof Date ? dateText(cell) : cell);
  if ((type === 'number' && typeof cell === 'number') || (type === 'boolean' && typeof cell === 'boolean')) return checkValue(type, cell);
  if (type === 'text') return { ok: true, value: textOf(cell) };
  if (isObject(cell)) return { ok: false, message: `an object or array is not a ${type}` };
  return parseCell(type, textOf(cell));
}

/** NUL and unpaired surrogates: valid in JavaScript strings, refused by PostgreSQL's jsonb. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a checked value holds text the database cannot store (looked for in keys and strings at any depth). */
export function isUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.some(isUnstorable);
  if (typeof value === 'object' && value !== null) return Object.entries(value).some(([key, member]) => UNSTORABLE.test(key) || isUnstorable(member));
  return false;
}
