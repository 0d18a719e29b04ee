import { defineFlowApp } from '../flows';
import { googleSheetsAuth } from './auth';
import { googleSheetsDeps } from './deps';
import { rowTriggers } from './new-row-trigger';
import { googleSheetsOptions } from './options';
import { rowActions } from './row-actions';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#0f9d58" d="M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z"/><path fill="#fff" d="M7 11h10v7H7zm1.5 1.5v1.25h3v-1.25zm4.5 0v1.25h3v-1.25zm-4.5 2.75v1.25h3v-1.25zm4.5 0v1.25h3v-1.25z"/></svg>',
  ).toString('base64');

/** The `google_sheets` app: rows of a Google Sheets worksheet, keyed by the headers of its first row. */
export const googleSheetsApp = defineFlowApp({
  uid: 'google_sheets',
  name: 'Google Sheets',
  description: 'Add, update and find rows of a Google Sheets worksheet by column header, and start flows on new rows',
  icon: ICON,
  category: 'connect',
  version: '1.0.0',
  auth: googleSheetsAuth,
  deps: googleSheetsDeps,
  triggers: rowTriggers,
  actions: rowActions,
  options: googleSheetsOptions,
});
