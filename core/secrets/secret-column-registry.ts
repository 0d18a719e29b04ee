import type { SecretColumn } from './secret-column';

/**
 * The columns `secrets rotate` walks. The kernel cannot know which plugin columns hold
 * secrets, so each plugin declares its own from `init`; the CLI boots every plugin
 * before rotating, so all declarations are in place by then.
 */
export class SecretColumnRegistry {
  readonly #columns: SecretColumn[] = [];

  declare(column: SecretColumn): void {
    for (const other of this.#columns) {
      if (other.table === column.table && other.column === column.column) {
        throw new Error(`secret column ${column.table}.${column.column} is declared twice`);
      }
      // Two columns sealing under one entity/field could have their values swapped
      // between them undetected; distinct names are what makes such a swap fail.
      if (other.entity === column.entity && other.field === column.field) {
        throw new Error(
          `secret columns ${other.table}.${other.column} and ${column.table}.${column.column} both use entity/field ${column.entity}.${column.field}`,
        );
      }
    }
    this.#columns.push(column);
  }

  /** Every declared column, in declaration order. */
  all(): readonly SecretColumn[] {
    return [...this.#columns];
  }
}
