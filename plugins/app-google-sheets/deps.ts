import { configRef } from '../../core';
import { googleSheetsConfig } from './config';

/** What the app's code uses besides the connection: its plugin's settings (the API base URLs). */
export const googleSheetsDeps = { config: configRef(googleSheetsConfig) };
