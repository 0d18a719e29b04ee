import type { BusService } from '../../../core';
import type { RecordIndexer } from '../model/record-indexer';

// STUB: replaced by the tables/records helper.
export class RecordStore {
  constructor(
    readonly bus: BusService,
    readonly indexer: RecordIndexer,
  ) {}
}
