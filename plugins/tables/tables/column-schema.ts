import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationError } from '../../../core';
import { DataTable, TableColumn } from '../entities';
import { COLUMN_TYPES, isColumnType, type ColumnType } from '../model/column-types';

export interface ColumnSpec {
  name: string;
  data_type: string;
}

/** Longest column name. */
export const COLUMN_NAME_MAX = 100;

/** The table's columns in display order. */
export function columnsOf(em: EntityManager, tableUuid: string): Promise<TableColumn[]> {
  return em.find(TableColumn, { tableUuid }, { orderBy: { ord: 'asc' } });
}

/**
 * Problems with new columns, by `<pathPrefix>.<index>.name|data_type`: an unknown type,
 * an empty or too long name, a name used twice (case-insensitive, also against `existing`).
 */
export function checkColumnSpecs(specs: readonly ColumnSpec[], existing: readonly Pick<TableColumn, 'name'>[], pathPrefix: string): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const taken = new Set(existing.map((column) => column.name.toLowerCase()));
  specs.forEach((spec, index) => {
    const at = pathPrefix === '' ? '' : `${pathPrefix}.${index}.`;
    const name = spec.name.trim();
    if (name === '') problems[`${at}name`] = ['must not be empty'];
    else if (name.length > COLUMN_NAME_MAX) problems[`${at}name`] = [`must be at most ${COLUMN_NAME_MAX} characters`];
    else if (taken.has(name.toLowerCase())) problems[`${at}name`] = [`a column named "${name}" already exists`];
    taken.add(name.toLowerCase());
    if (!isColumnType(spec.data_type)) problems[`${at}data_type`] = [`must be one of ${COLUMN_TYPES.join(', ')}`];
  });
  return problems;
}

/**
 * Adds columns at the end of the table, each with a fresh storage key (`c<n>`, never
 * reused). Throws a ValidationError (paths under `pathPrefix`) for bad specs. The
 * caller holds the table row lock (`em.lock` / `for update`), so keys cannot clash.
 */
export async function addColumns(em: EntityManager, table: DataTable, specs: readonly ColumnSpec[], pathPrefix = 'columns'): Promise<TableColumn[]> {
  const existing = await columnsOf(em, table.uuid);
  const problems = checkColumnSpecs(specs, existing, pathPrefix);
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
  let ord = existing.reduce((max, column) => Math.max(max, column.ord), 0);
  const created = specs.map((spec) => {
    const column = em.create(TableColumn, {
      tenantUuid: table.tenantUuid,
      tableUuid: table.uuid,
      name: spec.name.trim(),
      dataType: spec.data_type as ColumnType,
      key: `c${table.nextColumnKey++}`,
      ord: ++ord,
    });
    return column;
  });
  await em.flush();
  return created;
}
