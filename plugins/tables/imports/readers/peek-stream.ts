import { Readable } from 'node:stream';

/** The first chunk of a stream, and a stream that still yields everything (that chunk first). */
export async function peekStream(stream: Readable): Promise<{ head: Buffer; stream: Readable }> {
  const chunks = stream[Symbol.asyncIterator]();
  const first = await chunks.next();
  const head: Buffer = first.done ? Buffer.alloc(0) : first.value;
  async function* all() {
    if (head.length > 0) yield head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value as Buffer;
  }
  return { head, stream: Readable.from(all(), { objectMode: false, highWaterMark: 1 }) };
}
