import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OrmService, TenantService } from '../../../core';
import { currentTenant, runInContext } from '../../../core/context/request-context';
import type { TestKernel, TestTenant } from '../../../core/testing';
import type { ContactDirectory } from '../../../plugins/contacts';
import { createContactDirectory } from '../../../plugins/contacts/contacts';

export const PLUGINS = ['agents', 'conversations', 'contacts'].map((id) => path.resolve(__dirname, '../../../plugins', id));
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The ContactDirectory as other plugins get it, over the kernel's ORM, with the
 * contacts settings of the kernel's configuration.
 */
export function directoryOf(kit: TestKernel): ContactDirectory {
  const orm = kit.kernel.orm;
  const service: OrmService = {
    get em() {
      return orm.em as EntityManager;
    },
    fork: () => orm.em.fork() as EntityManager,
    orm: orm as OrmService['orm'],
  };
  const tenants: TenantService = {
    current: currentTenant,
    require: () => {
      const tenant = currentTenant();
      if (!tenant) throw new Error('no tenant in the current work context');
      return tenant;
    },
    run: (tenant, fn) => runInContext({ tenant }, fn),
  };
  return createContactDirectory(service, tenants, {
    defaultCountry: kit.kernel.config.get('contacts.defaultCountry') as string,
    analyzerModel: '',
  });
}

/** Runs `fn` as the tenant's work, in one transaction (as a request or a bus handler would). */
export function inTenant<T>(kit: TestKernel, tenant: TestTenant, fn: () => Promise<T>): Promise<T> {
  return runInContext({ tenant: tenant.tenant }, () => kit.kernel.orm.em.fork().transactional(() => fn()));
}

/** SQL statements the ORM's connection runs while `fn` runs. */
export async function statementsDuring(kit: TestKernel, fn: () => Promise<unknown>): Promise<string[]> {
  const spy = jest.spyOn(kit.kernel.orm.config.getLogger(), 'logQuery');
  try {
    await fn();
    return spy.mock.calls.map(([context]) => String(context.query));
  } finally {
    spy.mockRestore();
  }
}

/** The tenant's contacts as the API lists them (up to 100), newest first. */
export async function listContacts(tenant: TestTenant, query = ''): Promise<any[]> {
  const res = await tenant.api.get(`/api/v1/contacts?per_page=100${query ? `&${query}` : ''}`).expect(200);
  return res.body.data.items;
}
