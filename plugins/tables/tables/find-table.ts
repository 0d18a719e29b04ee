import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findByUuid } from '../../../core';
import { DataTable } from '../entities';
import { TableNotFoundError } from '../model/table-errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (text: unknown): text is string => typeof text === 'string' && UUID.test(text);

/**
 * A table of the current tenant, or TableNotFoundError (404, the spec's body). `lock`
 * takes the row lock (`select ... for update`, inside the caller's transaction): column
 * changes hold it, so two of them never hand out the same storage key or name.
 * Callers other than routes (a flow's table id) may pass any text: what is not a uuid
 * names no table.
 */
export async function findTable(em: EntityManager, uuid: string, options: { lock?: boolean } = {}): Promise<DataTable> {
  if (!isUuid(uuid)) throw new TableNotFoundError(uuid);
  const table = options.lock ? await em.findOne(DataTable, { uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true }) : await findByUuid(em, DataTable, uuid);
  if (!table) throw new TableNotFoundError(uuid);
  return table;
}
