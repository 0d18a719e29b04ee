import { definePlugin } from '../../core';
import { contributeFlowApp } from '../flows';
import { agentsApp } from './agents-app';

export { agentsApp } from './agents-app';

export default definePlugin({
  ...contributeFlowApp(agentsApp),
});
