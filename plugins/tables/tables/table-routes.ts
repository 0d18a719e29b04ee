import type { BusService, HttpService } from '../../../core';

// STUB: replaced by the tables/records helper.
export function registerTableRoutes(_http: HttpService, _deps: { bus: BusService }): void {}
