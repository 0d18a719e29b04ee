import type { BusService, HttpService, OrmService, TenantService } from '../../../core';
import type { ContactDirectory } from '../contact-directory';
import type { ContactsSettings } from '../contacts-config';
import { createContactDirectory as directory } from './contact-directory-service';
import { registerContactRoutes } from './contact-routes';
import { registerFieldRoutes } from './field-routes';
import { registerSettingRoutes } from './setting-routes';

/** Contact routes (CRUD, search, pagination), contact fields and contact settings. */
export function registerContacts(http: HttpService, bus: BusService, settings: ContactsSettings): void {
  registerContactRoutes(http, bus, settings);
  registerFieldRoutes(http);
  registerSettingRoutes(http);
}

/** The ContactDirectory other plugins use. */
export function createContactDirectory(orm: OrmService, tenants: TenantService, settings: ContactsSettings): ContactDirectory {
  return directory(orm, tenants, settings);
}
