import { extractText, getDocumentProxy } from 'unpdf';
import { ImportSourceError, type ImportReader } from '../import-reader';
import { chunkText } from '../text-chunks';
import { readAll } from './read-all';

/**
 * The text of a PDF (unpdf, PDF.js underneath), page by page, cut into chunks a search
 * hit can quote (chunkText): one row per chunk, columns `page` and `content`. PDF.js
 * needs the whole document at once (cross-reference table at the end), so it is read
 * into memory, which the upload limit bounds. A PDF without text (a scan) fails: it
 * would need OCR.
 */
export const readPdf: ImportReader = async function* (context) {
  const bytes = await readAll(context.content());
  let pages: string[];
  try {
    const document = await getDocumentProxy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
    pages = (await extractText(document, { mergePages: false })).text;
  } catch (error) {
    throw new ImportSourceError(`Not a readable PDF: ${(error as Error).message}`);
  }
  yield { kind: 'columns', names: ['page', 'content'], types: ['number', 'text'] };
  let row = 0;
  for (let page = 0; page < pages.length; page++) {
    for (const chunk of chunkText(pages[page])) yield { kind: 'row', row: ++row, cells: [page + 1, chunk] };
  }
  if (row === 0) throw new ImportSourceError('The PDF has no text to import (a scanned document needs OCR first)');
};
