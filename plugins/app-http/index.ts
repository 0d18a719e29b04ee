import { definePlugin } from '../../core';
import { flowApps } from '../flows';
import { httpApp } from './http-app';

export { httpApp } from './http-app';

export default definePlugin({
  id: 'app-http',
  dependsOn: ['flows'],
  contributes: [flowApps.add(httpApp)],
});
