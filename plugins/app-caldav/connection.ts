import { ValidationError } from '../../core';
import { VendorError, type FlowConnectionValue } from '../flows';
import type { DavHttp } from './caldav-client';
import { caldavClient } from './caldav-client';

/** What every piece of the app's code holds: `context.http` and the step's connection. */
export interface CaldavContext {
  http: DavHttp;
  connection: FlowConnectionValue<{ server_url: string }> | null;
}

/** The client for the step's connection (the flows plugin requires one for a connect app; a 422 otherwise). */
export function clientFor(context: CaldavContext) {
  if (!context.connection) throw new ValidationError({ connection: ['is required: choose a CalDAV connection'] });
  return caldavClient(context.http, context.connection.credentials.server_url);
}

/** An option list's answer to a refusal the user can fix (wrong password, no access, rate limit): a state, not an error. */
export function unavailableFor(error: unknown): { state: 'unavailable'; message: string } {
  if (error instanceof VendorError && error.refused) return { state: 'unavailable', message: error.message };
  throw error;
}

/** Days in milliseconds, for the default time windows. */
export const DAY_MS = 86_400_000;
