import { coreServices, definePlugin } from '../../core';
import { flowApps, flowTriggersRef } from '../flows';
import { scheduleApp } from './schedule-app';
import { consumeTicks } from './tick-consumer';

export { scheduleApp } from './schedule-app';

export default definePlugin({
  contributes: [flowApps.add(scheduleApp)],
  deps: { bus: coreServices.bus, triggers: flowTriggersRef, logger: coreServices.logger },
  init({ bus, triggers, logger }) {
    consumeTicks(bus, triggers, logger);
  },
});
