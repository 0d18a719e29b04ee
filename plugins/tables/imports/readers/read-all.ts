import type { Readable } from 'node:stream';

/** The whole content in memory: for the formats whose parsers need it at once (bounded by the upload limit). */
export async function readAll(content: Readable): Promise<Buffer> {
  const slices: Buffer[] = [];
  for await (const slice of content) slices.push(slice as Buffer);
  return Buffer.concat(slices);
}
