import type { EntityManager } from '@mikro-orm/postgresql';
import type { DataTable } from '../entities';
import type { ColumnType } from '../model/column-types';
import { COLUMN_NAME_MAX, addColumns, columnsOf } from '../tables/column-schema';
import { cellValue, isUnstorable } from './cell-values';

/** Where each source column goes: the table column's storage key and type. */
export interface PlannedColumn {
  name: string;
  key: string;
  type: ColumnType;
}

/**
 * Source column names made usable: trimmed, an empty one named by its position
 * (`column_3`), cut to the longest allowed name, and a repeated one (case-insensitive)
 * suffixed `_2`, `_3`, ... so every source column keeps its data.
 */
export function cleanColumnNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((raw, index) => {
    const base = (raw.trim() || `column_${index + 1}`).slice(0, COLUMN_NAME_MAX);
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base.slice(0, COLUMN_NAME_MAX - `_${n}`.length)}_${n}`;
    taken.add(name.toLowerCase());
    return name;
  });
}

/**
 * Matches the source columns to the table's by name (case-insensitive; an existing
 * column keeps its type) and adds the others at the end with the given types. The
 * caller holds the table's row lock.
 */
export async function planColumns(em: EntityManager, table: DataTable, names: readonly string[], types: readonly ColumnType[]): Promise<PlannedColumn[]> {
  const existing = new Map((await columnsOf(em, table.uuid)).map((column) => [column.name.toLowerCase(), column]));
  const fresh = names.map((name, index) => ({ name, data_type: types[index] })).filter((spec) => !existing.has(spec.name.toLowerCase()));
  const added = new Map((await addColumns(em, table, fresh)).map((column) => [column.name.toLowerCase(), column]));
  return names.map((name) => {
    const column = existing.get(name.toLowerCase()) ?? added.get(name.toLowerCase())!;
    return { name: column.name, key: column.key, type: column.dataType };
  });
}

/** A row's values by storage key (empty cells left out), or what is wrong with its first bad cell. */
export function recordValues(columns: readonly PlannedColumn[], cells: readonly unknown[]): { values: Record<string, unknown> } | { problem: string } {
  const values: Record<string, unknown> = {};
  for (let index = 0; index < columns.length; index++) {
    const column = columns[index];
    const checked = cellValue(column.type, cells[index]);
    if (!checked.ok) return { problem: `${column.name}: ${checked.message}` };
    if (isUnstorable(checked.value)) return { problem: `${column.name}: contains a NUL character or broken Unicode, which cannot be stored` };
    if (checked.value !== null) values[column.key] = checked.value;
  }
  return { values };
}
