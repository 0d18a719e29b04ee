import type { BusService } from '../../../core';

/** The topic of the messages that run a deployed poll trigger, one poll each. */
export const POLL_TOPIC = 'flows.trigger.poll';

/** One poll of a deployed version's trigger (a `poll` trigger of `app_uid`). */
export interface PollMessage {
  version_uuid: string;
  app_uid: string;
  trigger_key: string;
}

/**
 * Publishes a poll in the current transaction, due after `delayMs` (at once by default).
 * The key is the version's: a pending poll of the same version is replaced, so a version
 * never has two chains of polls.
 */
export function publishPoll(bus: BusService, message: PollMessage, delayMs = 0): Promise<string> {
  return bus.publish(POLL_TOPIC, message, { delay: delayMs, key: `poll:${message.version_uuid}` });
}
