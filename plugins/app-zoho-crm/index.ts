import { definePlugin } from '../../core';
import { contributeFlowApp } from '../flows';
import { zohoCrmApp } from './zoho-app';
import { zohoConfig } from './zoho-config';

export { zohoCrmApp } from './zoho-app';
export { zohoConfig, type ZohoSettings } from './zoho-config';

/**
 * Adds the Zoho CRM app to the flow studio. Its config holds the operator's OAuth client
 * and Zoho's URLs; `contributeFlowApp` hands that config to the app's code as `deps.config`.
 */
export default definePlugin({
  config: zohoConfig,
  ...contributeFlowApp(zohoCrmApp),
});
