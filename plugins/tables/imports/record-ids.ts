import { randomBytes, randomInt } from 'node:crypto';
import { v7 } from 'uuid';

/** Largest UUIDv7 sequence value (31 bits: the library's counter field). */
const SEQ_MAX = 2 ** 31 - 1;

/**
 * Ids for imported records: UUIDv7 like every other id (newUuid), and like them in
 * creation order, which is how records list, so the rows keep the file's order. Made
 * in batches: one random draw per batch rather than one per id (a system call each,
 * which a 100k-row import felt), and a counter that never goes back between batches.
 */
export class RecordIds {
  private msecs = 0;
  private seq = 0;

  next(count: number): string[] {
    const now = Date.now();
    if (now > this.msecs) {
      this.msecs = now;
      // A random start, with room to count up.
      this.seq = randomInt(2 ** 30);
    }
    const random = randomBytes(16 * count);
    const ids = new Array<string>(count);
    for (let index = 0; index < count; index++) {
      if (this.seq >= SEQ_MAX) {
        this.msecs++;
        this.seq = 0;
      }
      ids[index] = v7({ msecs: this.msecs, seq: this.seq++, random: random.subarray(16 * index, 16 * index + 16) });
    }
    return ids;
  }
}
