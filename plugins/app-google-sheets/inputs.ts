import { Type } from '../../core';
import { Options } from '../flows';

/** Input members shared by the actions and the trigger, each linked to the option list it is picked from. */

export const SpreadsheetId = Options(
  'spreadsheets',
  {},
  Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$', description: 'The spreadsheet’s id (the part of its URL after /d/), picked from the `spreadsheets` list' }),
);

export const WorksheetTitle = Options(
  'worksheets',
  { params: { spreadsheet_id: '{{config.spreadsheet_id}}' } },
  Type.String({ minLength: 1, maxLength: 100, description: 'The worksheet (tab) by its title, picked from the `worksheets` list of the spreadsheet' }),
);

const columnParams = { params: { spreadsheet_id: '{{config.spreadsheet_id}}', worksheet_title: '{{config.worksheet_title}}' } };

/** A column of the worksheet, by its header (see the `columns` list). */
export const ColumnKey = (description: string) => Options('columns', columnParams, Type.String({ minLength: 1, maxLength: 200, description }));

export const CellValue = Type.Union([Type.String({ maxLength: 50000 }), Type.Number(), Type.Boolean(), Type.Null()], {
  description: 'What the cell gets, read as if typed in the sheet (`=SUM(A2:A9)` is a formula, `2025-01-31` a date); `null` or "" empties it',
});

export const CellValues = (description: string) =>
  Type.Record(Type.String({ minLength: 1, maxLength: 200 }), CellValue, { minProperties: 1, maxProperties: 1000, description });
