import { configRef } from '../../core';
import { hubspotCrmConfig } from './config';

/** What the app's code uses besides the connection: its plugin's settings (the API base URL, the poll's settle time). */
export const hubspotCrmDeps = { config: configRef(hubspotCrmConfig) };
