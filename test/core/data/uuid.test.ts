import { validate, version } from 'uuid';
import { newUuid } from '../../../core/data/uuid';

describe('newUuid', () => {
  it('makes valid, unique UUIDv7s that strictly increase, across pool refills and within one millisecond', () => {
    const ids = Array.from({ length: 5_000 }, () => newUuid());
    for (const id of ids.slice(0, 50)) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
    }
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) if (!(ids[i] > ids[i - 1])) throw new Error(`id ${i} (${ids[i]}) is not after ${ids[i - 1]}`);
  });

  it('carries the current time in its first 48 bits', () => {
    const before = Date.now();
    const id = newUuid();
    const after = Date.now();
    const msecs = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(msecs).toBeGreaterThanOrEqual(before);
    expect(msecs).toBeLessThanOrEqual(after + 1);
  });

  it('draws fresh random bits for every id (no two share their random tail)', () => {
    const tails = new Set(Array.from({ length: 2_000 }, () => newUuid().slice(-12)));
    expect(tails.size).toBe(2_000);
  });
});
