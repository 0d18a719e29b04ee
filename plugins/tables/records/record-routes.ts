import type { HttpService } from '../../../core';
import type { RecordStore } from './record-store';

// STUB: replaced by the tables/records helper.
export function registerRecordRoutes(_http: HttpService, _store: RecordStore): void {}
