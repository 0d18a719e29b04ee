import type { ConfigValues } from '../../core';

/**
 * The Google Calendar app's settings (decisions-2.md section 0): the operator's OAuth
 * client and Google's endpoints, defaulting to Google's public ones so an install (or a
 * test) can point them elsewhere. Google's token endpoint lives on another host than its
 * authorization endpoint, hence a token URL key of its own. These keys are the calendar
 * app's alone: an install may register one Google client for every Google app, but each
 * app reads its own keys so one can be moved without the other.
 */
export const googleCalendarConfig = {
  googleCalendarClientId: {
    doc: 'OAuth client id of the Google Cloud project the Google Calendar app authorizes with (empty: no connection can be made)',
    format: String,
    default: '',
    env: 'GOOGLE_CALENDAR_CLIENT_ID',
  },
  googleCalendarClientSecret: {
    doc: 'OAuth client secret of that Google Cloud project',
    format: String,
    default: '',
    env: 'GOOGLE_CALENDAR_CLIENT_SECRET',
    sensitive: true,
  },
  googleCalendarAccountsUrl: {
    doc: 'Base URL of Google’s authorization server (`/o/oauth2/v2/auth` hangs under it)',
    format: String,
    default: 'https://accounts.google.com',
    env: 'GOOGLE_CALENDAR_ACCOUNTS_URL',
  },
  googleCalendarTokenUrl: {
    doc: 'Google’s OAuth token endpoint (codes exchanged, access tokens refreshed)',
    format: String,
    default: 'https://oauth2.googleapis.com/token',
    env: 'GOOGLE_CALENDAR_TOKEN_URL',
  },
  googleCalendarApiBaseUrl: {
    doc: 'Base URL of the Google Calendar API (`/calendar/v3/...` hangs under it)',
    format: String,
    default: 'https://www.googleapis.com',
    env: 'GOOGLE_CALENDAR_API_BASE_URL',
  },
};

export type GoogleCalendarSettings = ConfigValues<typeof googleCalendarConfig>;
