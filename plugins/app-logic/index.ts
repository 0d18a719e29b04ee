import { definePlugin } from '../../core';
import { flowApps } from '../flows';
import { logicApp } from './logic-app';

export { logicApp } from './logic-app';

export default definePlugin({
  id: 'app-logic',
  dependsOn: ['flows'],
  contributes: [flowApps.add(logicApp)],
});
