import { definePlugin } from '../../core';
import { contributeFlowApp } from '../flows';
import { tablesApp } from './tables-app';

export { tablesApp } from './tables-app';

export default definePlugin({
  ...contributeFlowApp(tablesApp),
});
