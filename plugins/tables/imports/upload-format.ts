import { open } from 'node:fs/promises';
import { ValidationError, type UploadedFile } from '../../../core';
import type { ImportFormat } from '../entities';
import type { MediaFormat, MediaReaders } from './media-readers';
import { CONTENT_NAMES, SNIFF_BYTES, formatOfName, sniffContent, type ContentKind } from './sniff-content';

export const AUDIO_NEEDS_TRANSCRIPTION = 'audio import needs a transcription provider';

/** What an upload is read as: a format of this plugin's readers, or of a contributed media reader with the options it keeps. */
export type UploadFormat = { format: ImportFormat; options: Record<string, unknown> } | { format: MediaFormat; options: Record<string, unknown> };

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
 * is content no reader takes. Audio (and binary content, which a media reader may know
 * better, as WebM) goes to the contributed audio reader, which judges it by its own
 * sniffing and limits; without one available, audio is refused with
 * AUDIO_NEEDS_TRANSCRIPTION whatever its name claims.
 */
export async function uploadFormat(file: UploadedFile, declared: string | undefined, media: MediaReaders): Promise<UploadFormat> {
  const { head, tail } = await headAndTail(file.path, file.size);
  const kind: ContentKind = sniffContent(head, tail);
  const refuse = (message: string) => new ValidationError({ file: [message] });
  const claims: Array<[string, string | undefined]> = [
    ['the format field', declared],
    ['its name', formatOfName(file.originalName)],
  ];
  const checkClaims = (found: string, named: string) => {
    for (const [by, claimed] of claims) {
      if (claimed !== undefined && claimed !== found) throw refuse(`is declared as ${claimed} (by ${by}) but its content is ${named}`);
    }
  };
  if (kind === 'audio' || kind === 'binary') {
    const audio = media.get('audio');
    const options = audio ? await audio.accept({ path: file.path, size: file.size, head }) : null;
    if (options) {
      checkClaims('audio', CONTENT_NAMES.audio);
      return { format: 'audio', options };
    }
    if (kind === 'audio') throw refuse(audio ? `is audio in a format that is not taken: send ${audio.accepts}` : AUDIO_NEEDS_TRANSCRIPTION);
  }
  if (kind === 'empty') throw refuse('is empty');
  if (kind === 'json-object') throw refuse('is a JSON object; a JSON import takes an array of objects, one per row');
  if (kind === 'utf16') throw refuse('is UTF-16 text; save it as UTF-8');
  if (kind === 'zip' || kind === 'binary') throw refuse(`is ${CONTENT_NAMES[kind]}, not a supported file: ${SUPPORTED}`);

  checkClaims(kind, CONTENT_NAMES[kind]);
  return { format: kind, options: {} };
}
