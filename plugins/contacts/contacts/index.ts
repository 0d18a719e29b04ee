import type { BusService, HttpService, OrmService, TenantService } from '../../../core';
import type { ContactDirectory } from '../contact-directory';
import type { ContactsSettings } from '../contacts-config';
import { createContactDirectory as directory } from './contact-directory-service';
import { contactRoutes } from './contact-routes';
import { contactFieldRoutes } from './field-routes';
import { contactSettingRoutes } from './setting-routes';

/** Contact routes (CRUD, search, pagination), contact fields and contact settings. */
export function registerContacts(http: HttpService, bus: BusService, settings: ContactsSettings): void {
  for (const route of [...contactRoutes(bus, settings), ...contactFieldRoutes, ...contactSettingRoutes]) http.route(route);
}

/** The ContactDirectory other plugins use. */
export function createContactDirectory(orm: OrmService, tenants: TenantService, settings: ContactsSettings): ContactDirectory {
  return directory(orm, tenants, settings);
}
