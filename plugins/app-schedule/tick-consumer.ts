import type { BusService, Logger } from '../../core';
import type { FlowTriggers } from '../flows';
import { nextTick } from './schedule';
import { TICK_TOPIC, publishTick, type TickMessage } from './schedule-app';

/**
 * Fires due ticks. Firing the execution and publishing the next tick commit together
 * with the bus's record that this message was handled, so each tick starts exactly one
 * execution even when several workers run or a worker dies mid-way (the redelivery is
 * skipped). A tick of a version that is no longer live (undeployed, redeployed, its
 * flow deleted) ends its chain.
 */
export function consumeTicks(bus: BusService, triggers: FlowTriggers, logger: Logger): void {
  bus.consume<TickMessage>({ name: 'fire-ticks', topics: [TICK_TOPIC], concurrency: 4 }, async (message) => {
    const tick = message.payload;
    const trigger = await triggers.liveVersion(tick.version_uuid);
    if (!trigger) {
      logger.debug('schedule tick of a version that is not live dropped', { version_uuid: tick.version_uuid });
      return;
    }
    const tickAt = new Date(tick.tick_at);
    await triggers.fire(trigger, { tick_at: tick.tick_at, fired_at: new Date().toISOString() });
    await publishTick(bus, { ...tick, tick_at: nextTick(tick.trigger, trigger.config, tickAt).toISOString() });
  });
}
