import type { Readable } from 'node:stream';

/**
 * Runs a driver's write of `body`. Until the write pipes the caller's stream somewhere,
 * an error of it (the client of an upload hanging up) would have no listener and crash
 * the process: a listener here keeps it on the stream (`errored`) for the pipe to report.
 * When the write fails the stream is destroyed, so its source is not left paused half-read.
 */
export async function writingBody<T>(body: Buffer | Readable, write: () => Promise<T>): Promise<T> {
  if (Buffer.isBuffer(body)) return write();
  body.on('error', () => {});
  try {
    return await write();
  } catch (error) {
    body.destroy();
    throw error;
  }
}
