import { open } from 'node:fs/promises';
import { ValidationError, type UploadedFile } from '../../../core';
import type { ImportFormat } from '../entities';
import { CONTENT_NAMES, SNIFF_BYTES, formatOfName, sniffContent, type ContentKind } from './sniff-content';

export const AUDIO_NEEDS_TRANSCRIPTION = 'audio import needs a transcription provider';

const SUPPORTED = 'CSV or TSV text (UTF-8), an Excel workbook (.xlsx), a JSON array of objects, XML or a PDF';

/** The start and the end of a file (the end holds a zip's directory). */
async function headAndTail(path: string, size: number): Promise<{ head: Buffer; tail: Buffer }> {
  const handle = await open(path, 'r');
  try {
    const read = async (position: number, length: number) => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return buffer.subarray(0, bytesRead);
    };
    const head = await read(0, Math.min(SNIFF_BYTES, size));
    const tail = size > SNIFF_BYTES ? await read(size - SNIFF_BYTES, SNIFF_BYTES) : head;
    return { head, tail };
  } finally {
    await handle.close();
  }
}

/**
 * The format of an uploaded file, from its content. The `format` field and the file
 * name's extension are claims: one the content contradicts is a 422 naming `file`, as
 * is content no reader takes. Audio is recognised and refused until a transcription
 * provider exists.
 */
export async function uploadFormat(file: UploadedFile, declared: ImportFormat | undefined): Promise<ImportFormat> {
  const { head, tail } = await headAndTail(file.path, file.size);
  const kind: ContentKind = sniffContent(head, tail);
  const refuse = (message: string) => new ValidationError({ file: [message] });
  if (kind === 'audio') throw refuse(AUDIO_NEEDS_TRANSCRIPTION);
  if (kind === 'empty') throw refuse('is empty');
  if (kind === 'json-object') throw refuse('is a JSON object; a JSON import takes an array of objects, one per row');
  if (kind === 'utf16') throw refuse('is UTF-16 text; save it as UTF-8');
  if (kind === 'zip' || kind === 'binary') throw refuse(`is ${CONTENT_NAMES[kind]}, not a supported file: ${SUPPORTED}`);

  const claims: Array<[string, string | undefined]> = [
    ['the format field', declared],
    ['its name', formatOfName(file.originalName)],
  ];
  for (const [by, claimed] of claims) {
    if (claimed !== undefined && claimed !== kind) throw refuse(`is declared as ${claimed} (by ${by}) but its content is ${CONTENT_NAMES[kind]}`);
  }
  return kind;
}
