import { AsyncLocalStorage } from 'node:async_hooks';

export interface TenantRef {
  uuid: string;
  slug: string;
  name: string;
}

/** What is known about the work in progress: a request or, later, a bus message. */
export interface WorkContext {
  requestId?: string;
  tenant?: TenantRef;
}

const storage = new AsyncLocalStorage<WorkContext>();

export function runInContext<T>(context: WorkContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentContext(): WorkContext | undefined {
  return storage.getStore();
}

export function currentTenant(): TenantRef | undefined {
  return storage.getStore()?.tenant;
}
