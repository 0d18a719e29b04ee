import { NotFoundError } from '../../../core';

/**
 * A table that does not exist in the current tenant: 404 with the spec's body for a
 * failed table lookup, `{success: false, message: "Data not found", data: [string]}`.
 */
export class TableNotFoundError extends NotFoundError {
  constructor(readonly tableUuid: string) {
    super('Data not found');
  }

  override body(): unknown {
    return { success: false, message: this.message, data: [`No table ${this.tableUuid} in this workspace`] };
  }
}

/** Most records one bulk request may create, update or delete. */
export const BULK_LIMIT = 1000;
