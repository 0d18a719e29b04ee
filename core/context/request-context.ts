import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface TenantRef {
  uuid: string;
  slug: string;
  name: string;
}

/** What is known about the work in progress: a request or, later, a bus message. */
export interface WorkContext {
  requestId?: string;
  tenant?: TenantRef;
  /**
   * The unit of work of this request or message, what `orm.em` resolves to outside a
   * transaction (inside one, MikroORM's transaction context wins). Kept here rather than
   * in MikroORM's own RequestContext, which would fork the EntityManager a second time
   * and run a second async context per request.
   */
  em?: EntityManager;
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
