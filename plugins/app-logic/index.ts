import { definePlugin } from '../../core';
import { flowApps } from '../flows';
import { logicApp } from './logic-app';

export { logicApp } from './logic-app';

export default definePlugin({
  contributes: [flowApps.add(logicApp)],
});
