import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusMessage } from '../../../core';
import type { FlowsRuntime } from '../flows-runtime';
import { flowCause, type FlowTriggers } from '../runs/flow-triggers';
import { liveTriggerContext } from './live-trigger-context';

/** Handlers of one event trigger running at once in one process. */
const EVENT_CONCURRENCY = 4;

/** The bus consumer of an event trigger (the flows plugin's, so `flows.fire-<app>-<trigger>` on the broker). */
export const eventConsumerName = (appUid: string, triggerKey: string): string => `fire-${appUid}-${triggerKey}`;

/**
 * Starts the live flows of `appUid`'s trigger that an event concerns, one execution per
 * flow, in the transaction that records the message as handled: an execution is written
 * once per event and flow, whatever retries the bus makes.
 */
async function fireMatching(runtime: FlowsRuntime, triggers: FlowTriggers, appUid: string, triggerKey: string, message: BusMessage, em: EntityManager) {
  for (const live of await triggers.live(appUid, triggerKey)) {
    // What a flow's own steps wrote does not start it again.
    if (message.headers['caused-by'] === flowCause(live.flowUuid)) continue;
    // The version of the trigger the flow was deployed with decides (every version listens on the same topic).
    const event = runtime.catalog.trigger(appUid, triggerKey, live.version)?.event;
    if (!event) {
      runtime.logger.warn('event trigger of a live flow not run: the app no longer has its version', { flow_uuid: live.flowUuid, app_uid: appUid, trigger_key: triggerKey, version: live.version });
      continue;
    }
    if (await event.matches(live.config, message, liveTriggerContext(runtime, em, live))) await triggers.fire(live, message.payload);
  }
}

/** One bus consumer per event trigger of every installed app (extensions' included), registered at init. */
export function consumeTriggerEvents(runtime: FlowsRuntime, triggers: FlowTriggers): void {
  for (const app of runtime.catalog.list()) {
    for (const trigger of app.triggers ?? []) {
      const event = trigger.event;
      if (!event) continue;
      runtime.bus.consume({ name: eventConsumerName(app.uid, trigger.key), topics: [event.topic], concurrency: EVENT_CONCURRENCY, formerly: event.formerly }, (message, { em }) =>
        fireMatching(runtime, triggers, app.uid, trigger.key, message, em),
      );
    }
  }
}
