import type { ColumnType } from './column-types';

/** A column as the API shows it (the spec's table column). */
export interface ColumnJson {
  uuid: string;
  name: string;
  data_type: ColumnType;
}

/** A record as the API shows it: values by column name. */
export interface RecordJson {
  uuid: string;
  table_uuid: string;
  values: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}
