import { HttpError } from '../../../core';
import type { Slot } from '../slots';
import { slotJson } from './json';

/**
 * 409: the time asked for cannot be booked (taken, in a buffer, outside the hours, the
 * day full). `data.alternatives` are the free slots suggested instead, per the agent's
 * `suggestion_priority` (nearest first for the API).
 */
export class SlotUnavailableError extends HttpError {
  constructor(
    message: string,
    readonly alternatives: Slot[],
  ) {
    super(409, message);
  }

  override body(): unknown {
    return { success: false, message: this.message, data: { alternatives: this.alternatives.map(slotJson) } };
  }
}
