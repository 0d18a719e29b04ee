import type { ImportFormat } from '../../entities';
import type { ImportReader } from '../import-reader';
import { readWebsite } from '../website/read-website';
import { readCsv } from './read-csv';
import { readJson } from './read-json';
import { readPdf } from './read-pdf';
import { readXlsx } from './read-xlsx';
import { readXml } from './read-xml';

/** The reader of each import format. */
export const READERS: Record<ImportFormat, ImportReader> = {
  csv: readCsv,
  xlsx: readXlsx,
  json: readJson,
  xml: readXml,
  pdf: readPdf,
  website: readWebsite,
};
