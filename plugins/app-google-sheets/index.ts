import { definePlugin } from '../../core';
import { contributeFlowApp } from '../flows';
import { googleSheetsConfig } from './config';
import { googleSheetsApp } from './google-sheets-app';

export { googleSheetsApp } from './google-sheets-app';
export { googleSheetsConfig, type GoogleSheetsSettings } from './config';

/** Adds the Google Sheets app to the flow studio; its code reads the API base URLs from this plugin's config. */
export default definePlugin({
  config: googleSheetsConfig,
  ...contributeFlowApp(googleSheetsApp),
});
