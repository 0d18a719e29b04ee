import { configRef } from '../../core';
import { Auth } from '../flows';
import { googleCalendarConfig } from './config';

/** The one scope the app asks for: read and write events, list calendars, query free/busy. */
export const GOOGLE_CALENDAR_SCOPE = 'https://www.googleapis.com/auth/calendar';

/**
 * A Google Calendar connection: the tokens of a Google account that granted the app
 * access to its calendars. `access_type=offline` and `prompt=consent` make Google issue a
 * refresh token on every consent, not only the first, so a reconnected account keeps
 * working after its first access token expires. The flows plugin runs the dance and
 * refreshes tokens; the app's code never does.
 */
export const googleCalendarAuth = Auth.oauth2({
  description: 'A Google account whose calendars the flows read and write',
  authorizeUrl: '{googleCalendarAccountsUrl}/o/oauth2/v2/auth',
  tokenUrl: '{googleCalendarTokenUrl}',
  scopes: [GOOGLE_CALENDAR_SCOPE],
  pkce: true,
  clientIdKey: 'googleCalendarClientId',
  clientSecretKey: 'googleCalendarClientSecret',
  authorizeParams: { access_type: 'offline', prompt: 'consent' },
});

/** What the app's code uses besides the connection: its plugin's settings (the API base URL). */
export const googleCalendarDeps = { config: configRef(googleCalendarConfig) };
