import { definePlugin } from '../../core';
import { flowApps } from '../flows';
import { httpApp } from './http-app';

export { httpApp } from './http-app';

export default definePlugin({
  contributes: [flowApps.add(httpApp)],
});
