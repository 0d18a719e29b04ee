import type { ImportRowError } from '../entities';

/** How many bad rows an import keeps with their messages; the rest are only counted. */
export const IMPORT_ERRORS_KEPT = 100;

/** The bad rows of one import: all counted, the first IMPORT_ERRORS_KEPT kept. */
export class RowErrors {
  readonly kept: ImportRowError[] = [];
  count = 0;

  add(row: number, message: string): void {
    this.count++;
    if (this.kept.length < IMPORT_ERRORS_KEPT) this.kept.push({ row, message });
  }
}
