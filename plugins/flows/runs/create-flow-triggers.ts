import type { BusService, OrmService, TenantService } from '../../../core';
import type { FlowTriggers } from './flow-triggers';

// TODO(session 3): being built by the engine.
export function createFlowTriggers(_deps: { orm: OrmService; bus: BusService; tenants: TenantService }): FlowTriggers {
  const missing = async (): Promise<never> => {
    throw new Error('not built yet');
  };
  return { live: missing, byHookToken: missing, liveVersion: missing, fire: missing };
}
