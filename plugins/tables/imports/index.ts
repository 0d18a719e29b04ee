import type { BusService, Egress, HttpService, Logger, OrmService } from '../../../core';
import type { TablesSettings } from '../tables-config';

export interface ImportDeps {
  http: HttpService;
  bus: BusService;
  orm: OrmService;
  egress: Egress;
  logger: Logger;
  settings: TablesSettings;
}

// STUB: replaced by the imports helper.
export function registerImports(_deps: ImportDeps): void {}
