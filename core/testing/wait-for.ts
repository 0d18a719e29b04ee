/**
 * Reads until `done` holds, and answers that value; throws with the last value read
 * after `timeoutMs`. Tests wait for the condition they check, never for a fixed time:
 * a loaded machine makes fixed waits a lottery. The generous default only bounds a
 * test that would otherwise hang.
 */
export async function waitFor<T>(read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 20_000, pollMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms; last value: ${describe(value)}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return String(text).slice(0, 2000);
}
