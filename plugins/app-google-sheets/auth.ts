import { Auth } from '../flows';

/**
 * A Google Sheets connection: the tokens of a Google account that granted the app its
 * scopes. Sheets to read and write the spreadsheets; Drive metadata (read-only) only to
 * list the spreadsheets to pick from, since the Sheets API has no list of its own.
 * `access_type=offline` and `prompt=consent` make Google issue a refresh token every
 * time, not only on the first consent, so a reconnected account keeps working.
 */
export const googleSheetsAuth = Auth.oauth2({
  description: 'A Google account whose spreadsheets the flows read and write',
  authorizeUrl: '{googleSheetsAccountsUrl}/o/oauth2/v2/auth',
  tokenUrl: '{googleSheetsTokenUrl}',
  scopes: ['https://www.googleapis.com/auth/spreadsheets', 'https://www.googleapis.com/auth/drive.metadata.readonly'],
  pkce: true,
  clientIdKey: 'googleSheetsClientId',
  clientSecretKey: 'googleSheetsClientSecret',
  authorizeParams: { access_type: 'offline', prompt: 'consent' },
});
