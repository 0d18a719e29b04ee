/**
 * Wall-clock stamps comparable across processes. `performance.timeOrigin + performance.now()`
 * is not: each process fixes its timeOrigin at start, and processes on one host were seen
 * 15-20 ms apart. Here each process measures, once, how far its monotonic clock is from
 * the system clock at the instant `Date.now()` ticks (spinning to catch the tick, so the
 * error is microseconds, not Date.now()'s whole millisecond).
 */

/** Milliseconds to add to `performance.timeOrigin + performance.now()` to get the system clock. */
export function clockCorrection(): number {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = Date.now();
    let now = start;
    let perf = 0;
    while (now === start) {
      perf = performance.now();
      now = Date.now();
    }
    samples.push(now - (performance.timeOrigin + perf));
  }
  // The smallest: a delay between the tick and the reads (preemption) only makes a sample larger.
  return Math.min(...samples);
}
