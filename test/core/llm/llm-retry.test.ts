import { backoffMs, isRetryableStatus, retryAfterMs } from '../../../core/llm/llm-retry';

describe('llm retry rules', () => {
  it('retries rate limits and server errors, not other refusals', () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 408, 413, 422].some(isRetryableStatus)).toBe(false);
  });

  it("reads OpenAI's retry-after-ms first, then Retry-After in seconds or as a date", () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after': '2' }, now)).toBe(2000);
    expect(retryAfterMs({ 'retry-after': '0.5' }, now)).toBe(500);
    expect(retryAfterMs({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after': ['4', '5'] }, now)).toBe(4000);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after-ms': '-1' }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
  });

  it('backs off exponentially with jitter, within half and all of the ceiling, capped at 8 s', () => {
    for (let i = 0; i < 50; i++) {
      const first = backoffMs(1, 500);
      expect(first).toBeGreaterThanOrEqual(250);
      expect(first).toBeLessThanOrEqual(500);
      const third = backoffMs(3, 500);
      expect(third).toBeGreaterThanOrEqual(1000);
      expect(third).toBeLessThanOrEqual(2000);
      const late = backoffMs(20, 500);
      expect(late).toBeGreaterThanOrEqual(4000);
      expect(late).toBeLessThanOrEqual(8000);
    }
  });
});
