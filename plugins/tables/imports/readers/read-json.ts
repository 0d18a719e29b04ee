import { pipeline } from 'node:stream';
import { streamArray } from 'stream-json/streamers/stream-array.js';
import { ImportSourceError, type ImportReader } from '../import-reader';
import { objectRows, type SourceObject } from './object-rows';

/**
 * A JSON array of objects, streamed (stream-json): one item in memory at a time. Row
 * numbers are the item's position from 1. Values keep their JSON types (a number stays
 * a number); nested objects and arrays suit a `json` column.
 */
export const readJson: ImportReader = (context) => objectRows(items(context.content()));

async function* items(content: NodeJS.ReadableStream): AsyncGenerator<SourceObject> {
  const stream = pipeline(content, streamArray.withParserAsStream(), () => {});
  try {
    for await (const { key, value } of stream as AsyncIterable<{ key: number; value: unknown }>) yield { row: key + 1, value };
  } catch (error) {
    if (error instanceof ImportSourceError) throw error;
    throw new ImportSourceError(`Not a readable JSON array: ${(error as Error).message}`);
  }
}
