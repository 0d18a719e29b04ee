import { BootError } from '../../../core';
import type { FlowAppDefinition } from './flow-app';

/** Polls further apart than a day are a schedule's job; closer than a second would only load the bus. */
const MAX_POLL_INTERVAL_SECONDS = 86_400;

/** Refuses at boot a trigger the flows plugin could not start: two ways to fire, an event without a topic, a poll without a sane interval. */
export function checkTriggerSources(app: Pick<FlowAppDefinition, 'uid' | 'triggers'>): void {
  for (const trigger of app.triggers ?? []) {
    const refuse = (problem: string) => new BootError(`flow app "${app.uid}": trigger "${trigger.key}" ${problem}`);
    const sources = (['hook', 'event', 'poll'] as const).filter((source) => trigger[source] !== undefined);
    if (sources.length > 1) throw refuse(`declares ${sources.join(' and ')}: a trigger fires one way`);
    if (trigger.event && (typeof trigger.event.topic !== 'string' || trigger.event.topic.trim() === '')) throw refuse('declares an event without a topic');
    if (trigger.event && typeof trigger.event.matches !== 'function') throw refuse('declares an event without matches()');
    if (trigger.poll) {
      const interval = trigger.poll.intervalSeconds;
      if (!Number.isInteger(interval) || interval < 1 || interval > MAX_POLL_INTERVAL_SECONDS) {
        throw refuse(`polls every ${interval} seconds: intervalSeconds must be a whole number from 1 to ${MAX_POLL_INTERVAL_SECONDS}`);
      }
      if (typeof trigger.poll.run !== 'function') throw refuse('declares a poll without run()');
    }
  }
}
