import { Type, type TSchema } from '../../core';
import { VendorError, defineOptions, type FlowOption, type OptionsProviderDefinition, type OptionsResult } from '../flows';
import { googleSheetsAuth } from './auth';
import { sheetsApi } from './client';
import { googleSheetsDeps } from './deps';
import { SpreadsheetId, WorksheetTitle } from './inputs';
import { WorksheetNotFound, openWorksheet, worksheetsOf } from './worksheet';

const NO_CONNECTION: OptionsResult = { state: 'unavailable', message: 'Choose a Google Sheets connection first' };

/** Lists the Sheets API answers whole (a spreadsheet's worksheets, a header row) are searched here: by label, ignoring case. */
const matching = (options: FlowOption[], search: string | null): FlowOption[] => {
  const needle = search?.trim().toLowerCase();
  return needle ? options.filter((option) => option.label.toLowerCase().includes(needle)) : options;
};

/** A spreadsheet or worksheet that is gone (deleted, renamed, no longer shared) is for the user to pick again, not a failure of Google's. */
function gone(error: unknown): OptionsResult {
  if (error instanceof WorksheetNotFound) return { state: 'unavailable', message: `${error.message}: choose another worksheet` };
  if (error instanceof VendorError && error.status === 404) return { state: 'unavailable', message: `${error.message}: choose another spreadsheet` };
  throw error;
}

type SheetsOptionsDefinition<P extends TSchema> = OptionsProviderDefinition<P, typeof googleSheetsAuth, typeof googleSheetsDeps>;

/** A list of this app: searched by its own `load`, which runs only once the step has a connection to call Google with. */
const sheetsOptions = <P extends TSchema>(provider: Pick<SheetsOptionsDefinition<P>, 'kind' | 'description' | 'params' | 'load'>) =>
  defineOptions<P, typeof googleSheetsAuth, typeof googleSheetsDeps>({
    auth: googleSheetsAuth,
    deps: googleSheetsDeps,
    ...provider,
    searchable: true,
    load: (context) => (context.connection ? provider.load(context) : NO_CONNECTION),
  });

const spreadsheets = sheetsOptions({
  kind: 'spreadsheets',
  description: 'The spreadsheets the Google account can open (value: the spreadsheet id), searched by name and paged by Google Drive',
  params: Type.Object({}, { additionalProperties: false }),
  async load(context) {
    const search = context.search?.trim() || null;
    const page = await sheetsApi(context).listSpreadsheets(search, context.cursor);
    return { options: page.files.map((file) => ({ label: file.name, value: file.id })), nextCursor: page.nextPageToken };
  },
});

const worksheets = sheetsOptions({
  kind: 'worksheets',
  description: 'The worksheets (tabs) of `params.spreadsheet_id` in tab order (value and label: the title). A spreadsheet that is gone answers the `unavailable` state.',
  params: Type.Object({ spreadsheet_id: SpreadsheetId }, { additionalProperties: false }),
  async load(context) {
    try {
      const sheets = worksheetsOf(await sheetsApi(context).worksheets(context.params.spreadsheet_id));
      return { options: matching(sheets.map((sheet) => ({ label: sheet.title, value: sheet.title })), context.search), nextCursor: null };
    } catch (error) {
      return gone(error);
    }
  },
});

const columns = sheetsOptions({
  kind: 'columns',
  description:
    'The columns of a worksheet, from its first row (value: the header; label: the header and the column letter, `Email (B)`). A worksheet that is gone answers the `unavailable` state.',
  params: Type.Object({ spreadsheet_id: SpreadsheetId, worksheet_title: WorksheetTitle }, { additionalProperties: false }),
  async load(context) {
    try {
      const sheet = await openWorksheet(sheetsApi(context), context.params.spreadsheet_id, context.params.worksheet_title);
      const headed = sheet.columns.filter((column) => column.header !== '');
      return { options: matching(headed.map((column) => ({ label: `${column.header} (${column.letter})`, value: column.key })), context.search), nextCursor: null };
    } catch (error) {
      return gone(error);
    }
  },
});

export const googleSheetsOptions = [spreadsheets, worksheets, columns];
