import { statementForeignKey } from '../../../core';

/**
 * A record reaches its table through a foreign key checked once per statement, with `on
 * delete cascade`: imports write records two thousand at a time, and a row-by-row key
 * check was a third of the insert (`statementForeignKey`). TableRecord and DataTable
 * declare these triggers; the tables migration 0003 creates them.
 */
export const RECORDS_TABLE_KEY = statementForeignKey({ table: 'data_table_records', column: 'table_uuid', parent: 'data_tables' });
