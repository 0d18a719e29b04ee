import type { ConfigValues } from '../../core';

/**
 * The Google Sheets app's settings (decisions-2.md section 0): the operator's OAuth client
 * and the Google endpoints. The URLs default to Google's public ones; an install (or a
 * test) points them elsewhere. Google's token endpoint is not under its accounts host,
 * hence a token URL key of its own.
 */
export const googleSheetsConfig = {
  googleSheetsClientId: {
    doc: 'OAuth client id of the Google Cloud project the Google Sheets app authorizes with (empty: connections cannot be made)',
    format: String,
    default: '',
    env: 'GOOGLE_SHEETS_CLIENT_ID',
  },
  googleSheetsClientSecret: {
    doc: 'OAuth client secret of that Google Cloud project',
    format: String,
    default: '',
    env: 'GOOGLE_SHEETS_CLIENT_SECRET',
    sensitive: true,
  },
  googleSheetsAccountsUrl: {
    doc: 'Base URL of Google’s authorization server (`/o/oauth2/v2/auth` hangs under it)',
    format: String,
    default: 'https://accounts.google.com',
    env: 'GOOGLE_SHEETS_ACCOUNTS_URL',
  },
  googleSheetsTokenUrl: {
    doc: 'Google’s OAuth token endpoint (codes exchanged, access tokens refreshed)',
    format: String,
    default: 'https://oauth2.googleapis.com/token',
    env: 'GOOGLE_SHEETS_TOKEN_URL',
  },
  googleSheetsApiBaseUrl: {
    doc: 'Base URL of the Google Sheets API (`/v4/spreadsheets/...` hangs under it)',
    format: String,
    default: 'https://sheets.googleapis.com',
    env: 'GOOGLE_SHEETS_API_BASE_URL',
  },
  googleSheetsDriveApiBaseUrl: {
    doc: 'Base URL of the Google Drive API the spreadsheets are listed with (`/drive/v3/files` hangs under it)',
    format: String,
    default: 'https://www.googleapis.com',
    env: 'GOOGLE_SHEETS_DRIVE_API_BASE_URL',
  },
};

export type GoogleSheetsSettings = ConfigValues<typeof googleSheetsConfig>;
