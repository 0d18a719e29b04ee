import type { ImportFormat } from '../../entities';
import type { ImportReader } from '../import-reader';
import { readCsv } from './read-csv';
import { readJson } from './read-json';

/**
 * A reader whose module loads on first use. exceljs and cheerio weigh about 37 MB each
 * in memory (measured): an installation that never imports a workbook or a website
 * should not carry them.
 */
const loadedOnUse =
  (load: () => ImportReader): ImportReader =>
  async function* (context) {
    yield* load()(context);
  };

/** The reader of each import format. */
export const READERS: Record<ImportFormat, ImportReader> = {
  csv: readCsv,
  json: readJson,
  // require, not import(): the sources are CommonJS, loaded by swc (bin/register-ts.js).
  xlsx: loadedOnUse(() => (require('./read-xlsx') as typeof import('./read-xlsx')).readXlsx),
  xml: loadedOnUse(() => (require('./read-xml') as typeof import('./read-xml')).readXml),
  pdf: loadedOnUse(() => (require('./read-pdf') as typeof import('./read-pdf')).readPdf),
  website: loadedOnUse(() => (require('../website/read-website') as typeof import('../website/read-website')).readWebsite),
};
