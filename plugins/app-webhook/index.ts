import { coreServices, definePlugin } from '../../core';
import { flowApps, flowTriggersRef } from '../flows';
import { registerHookRoute } from './hook-route';
import { webhookApp } from './webhook-app';

export { webhookApp } from './webhook-app';

export default definePlugin({
  contributes: [flowApps.add(webhookApp)],
  deps: { http: coreServices.http, triggers: flowTriggersRef },
  init({ http, triggers }) {
    registerHookRoute(http, triggers);
  },
});
