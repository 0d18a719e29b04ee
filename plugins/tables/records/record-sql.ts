import type { TableColumn } from '../entities';

/** A piece of SQL with its `?` parameters, in order. */
export interface Sql {
  text: string;
  params: unknown[];
}

export const sql = (text: string, ...params: unknown[]): Sql => ({ text, params });

/** Pieces joined by `separator`, their parameters in order. */
export function joinSql(pieces: readonly Sql[], separator: string): Sql {
  return { text: pieces.map((piece) => piece.text).join(separator), params: pieces.flatMap((piece) => piece.params) };
}

/**
 * SQL expressions over one column's value in a record (the records table aliased `r`).
 * Values are checked on the way in, so each is of its column's type; the CASEs keep a
 * value of another JSON type (none should exist) from failing a whole query with a cast error.
 */
export class ColumnSql {
  /** The value as jsonb (SQL NULL when the record has none). */
  readonly json: string;
  /** The value as text (`->>`). */
  readonly text: string;

  constructor(readonly column: TableColumn) {
    // Storage keys are made by addColumns (`c<n>`); checked anyway, since they are written into the SQL.
    if (!/^[A-Za-z0-9_]+$/.test(column.key)) throw new Error(`column ${column.uuid} has an unexpected storage key`);
    this.json = `r."values"->'${column.key}'`;
    this.text = `(r."values"->>'${column.key}')`;
  }

  get number(): string {
    return `(case when jsonb_typeof(${this.json}) = 'number' then (${this.json})::numeric end)`;
  }

  /** A date alone means midnight UTC, so every date compares as an instant whatever the session's time zone. */
  get instant(): string {
    return `(case when jsonb_typeof(${this.json}) = 'string' then (case when length(${this.text}) = 10 then ${this.text} || 'T00:00:00Z' else ${this.text} end)::timestamptz end)`;
  }

  get boolean(): string {
    return `(case when jsonb_typeof(${this.json}) = 'boolean' then (${this.json})::boolean end)`;
  }

  /** No value, JSON null or an empty string. */
  get empty(): string {
    return `(coalesce(${this.json}, 'null'::jsonb) in ('null'::jsonb, '""'::jsonb))`;
  }

  /** What the column sorts by: numbers and dates by value, text case-insensitively, JSON by its text. */
  get sortKey(): string {
    switch (this.column.dataType) {
      case 'number':
        return this.number;
      case 'date':
        return this.instant;
      case 'boolean':
        return this.boolean;
      case 'json':
        return `(${this.json})::text`;
      default:
        return `lower(${this.text})`;
    }
  }
}

/** A checked date value (`YYYY-MM-DD` or ISO 8601 UTC) as an instant, the way ColumnSql.instant reads stored ones. */
export const dateInstant = (value: string): string => (value.length === 10 ? `${value}T00:00:00Z` : value);
