import { TYPE_SAMPLE_ROWS } from '../cell-values';
import { ImportSourceError, type ImportItem } from '../import-reader';

export interface SourceObject {
  row: number;
  value: unknown;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Rows from a sequence of objects (a JSON array's items, XML records). The columns are
 * the members of the first TYPE_SAMPLE_ROWS objects, in the order they first appear; a
 * later object with a member that is not a column is a bad row (its message names the
 * members), as is an item that is not an object.
 */
export async function* objectRows(objects: AsyncIterable<SourceObject>): AsyncGenerator<ImportItem> {
  const iterator = objects[Symbol.asyncIterator]();
  const sample: SourceObject[] = [];
  const names = new Set<string>();
  while (sample.length < TYPE_SAMPLE_ROWS) {
    const next = await iterator.next();
    if (next.done) break;
    sample.push(next.value);
    if (isPlainObject(next.value.value)) for (const name of Object.keys(next.value.value)) names.add(name);
  }
  if (names.size === 0) throw new ImportSourceError(sample.length === 0 ? 'There are no records to import' : 'The records are not objects with members');
  const columns = [...names];
  yield { kind: 'columns', names: columns };

  const rowOf = ({ row, value }: SourceObject): ImportItem => {
    if (!isPlainObject(value)) return { kind: 'bad-row', row, message: 'is not an object' };
    const unknown = Object.keys(value).filter((name) => !names.has(name));
    if (unknown.length > 0) return { kind: 'bad-row', row, message: `has members that are not columns: ${unknown.map((name) => `"${name}"`).join(', ')}` };
    return { kind: 'row', row, cells: columns.map((name) => value[name] ?? null) };
  };
  for (const object of sample) yield rowOf(object);
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield rowOf(next.value);
}
