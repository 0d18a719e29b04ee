/**
 * What an uploaded file is, judged from its bytes (the client's media type and file
 * name are only claims): the magic numbers of the binary formats, the first character
 * of JSON and XML, and UTF-8 text for CSV/TSV.
 */
export type ContentKind = 'csv' | 'xlsx' | 'json' | 'xml' | 'pdf' | 'audio' | 'json-object' | 'zip' | 'binary' | 'utf16' | 'empty';

/** How many bytes of the start (and of the end, for a zip's directory) the sniffer looks at. */
export const SNIFF_BYTES = 64 * 1024;

const ascii = (bytes: Buffer, start: number, text: string) => bytes.subarray(start, start + text.length).toString('latin1') === text;

/** Brands of the ISO media file (`ftyp`) that carry audio: M4A and the MP4 family. */
const MEDIA_BRANDS = /^(M4A |M4B |M4P |F4A |F4B |mp4\d|iso[m\d]|3gp\d|3g2\w|dash|qt {2})$/;

function isAudio(head: Buffer): boolean {
  if (ascii(head, 0, 'ID3') || ascii(head, 0, 'OggS') || ascii(head, 0, 'fLaC')) return true;
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return true;
  if (ascii(head, 4, 'ftyp') && MEDIA_BRANDS.test(head.subarray(8, 12).toString('latin1'))) return true;
  // An MPEG audio frame: 11 set sync bits (UTF-8 text never starts with 0xFF).
  return head.length >= 2 && head[0] === 0xff && (head[1] & 0xe0) === 0xe0;
}

/** C0 control characters other than tab, line feed, form feed and carriage return: not text. */
const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

/** `head`: the first SNIFF_BYTES of the file; `tail`: the last ones (the zip directory of a workbook). */
export function sniffContent(head: Buffer, tail: Buffer): ContentKind {
  if (head.length === 0) return 'empty';
  if (ascii(head, 0, 'PK\u0003\u0004')) return head.includes('xl/') || tail.includes('xl/') ? 'xlsx' : 'zip';
  if (ascii(head, 0, '%PDF-')) return 'pdf';
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return 'utf16';
  if (isAudio(head)) return 'audio';
  let text: string;
  try {
    // `stream: true`: the cut at SNIFF_BYTES may split a character.
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return 'binary';
  }
  if (CONTROL.test(text)) return 'binary';
  const first = text.replace(/^\uFEFF/, '').trimStart()[0];
  if (first === undefined) return 'empty';
  if (first === '[') return 'json';
  if (first === '{') return 'json-object';
  if (first === '<') return 'xml';
  return 'csv';
}

/** What a file name's extension claims; undefined for an extension that claims nothing we know. */
export function formatOfName(name: string): string | undefined {
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  switch (extension) {
    case 'csv':
    case 'tsv':
    case 'tab':
    case 'txt':
      return 'csv';
    case 'xlsx':
    case 'xlsm':
      return 'xlsx';
    case 'json':
    case 'xml':
    case 'pdf':
      return extension;
    case 'mp3':
    case 'wav':
    case 'ogg':
    case 'oga':
    case 'opus':
    case 'flac':
    case 'm4a':
    case 'aac':
    case 'mp4':
      return 'audio';
    default:
      return undefined;
  }
}

/** How a message names the content that was found. */
export const CONTENT_NAMES: Record<ContentKind, string> = {
  csv: 'CSV text',
  xlsx: 'an Excel workbook',
  json: 'a JSON array',
  xml: 'XML',
  pdf: 'a PDF document',
  audio: 'audio',
  'json-object': 'a JSON object',
  zip: 'a zip archive',
  binary: 'binary data',
  utf16: 'UTF-16 text',
  empty: 'empty',
};
