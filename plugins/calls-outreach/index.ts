import { coreServices, definePlugin } from '../../core';
import { contributeTaskExecutor } from '../outreach';
import { runCallTaskConsumers } from './call-outcomes';
import type { MakeCallDeps } from './deps';
import { makeCallExecutor } from './make-call-executor';

const executor = contributeTaskExecutor(makeCallExecutor);

/**
 * The link between two areas (Medusa's module links), as channels-outreach is for
 * send_message: outreach runs tasks by type, the calls plugin places calls; this plugin
 * gives outreach the `make_call` executor and settles each task when its call ends, so
 * an install without one of them still boots the other.
 *
 * PUBLIC_BASE_URL must be set (the channels plugin's `publicBaseUrl`): a task runs in
 * the background, with no request whose origin the provider could call back, so
 * without it make_call tasks are refused with 422.
 */
export default definePlugin({
  contributes: executor.contributes,
  deps: { ...executor.deps, bus: coreServices.bus, logger: coreServices.logger },
  init(resolved) {
    // The executor's deps (and, unused by it, the bus and logger) handed to outreach for context.deps.
    executor.init(resolved);
    runCallTaskConsumers(resolved.bus, resolved.logger, resolved as unknown as MakeCallDeps);
  },
});
