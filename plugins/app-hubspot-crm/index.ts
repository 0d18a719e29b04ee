import { definePlugin } from '../../core';
import { contributeFlowApp } from '../flows';
import { hubspotCrmConfig } from './config';
import { hubspotCrmApp } from './hubspot-app';

export { hubspotCrmApp } from './hubspot-app';
export { hubspotCrmConfig } from './config';

/** Adds the HubSpot CRM app to the flow studio; its code reads the plugin's own settings (`deps.config`). */
export default definePlugin({ config: hubspotCrmConfig, ...contributeFlowApp(hubspotCrmApp) });
