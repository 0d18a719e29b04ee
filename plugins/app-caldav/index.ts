import { definePlugin } from '../../core';
import { contributeFlowApp } from '../flows';
import { caldavApp } from './caldav-app';

export { caldavApp } from './caldav-app';
export { caldavAuth } from './auth';

export default definePlugin({
  ...contributeFlowApp(caldavApp),
});
