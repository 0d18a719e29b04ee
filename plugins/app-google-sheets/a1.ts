/**
 * A1 notation as the Sheets API reads it. A worksheet title is always quoted (`'Q1 leads'!A1`):
 * unquoted, a title with a space, a `!` or one that looks like a cell (`A1`) is misread
 * and the call fails or, worse, reads another range. Inside the quotes a quote is doubled.
 */

/** `'Title'`, quotes inside doubled. */
export const quoteTitle = (title: string): string => `'${title.replace(/'/g, "''")}'`;

/** `'Title'!A1:C9` from a title and a range of that worksheet. */
export const rangeIn = (title: string, cells: string): string => `${quoteTitle(title)}!${cells}`;

/** The column letters of a 0-based column index: 0 is A, 25 is Z, 26 is AA. */
export function columnLetter(index: number): string {
  let letters = '';
  for (let rest = index + 1; rest > 0; rest = Math.floor((rest - 1) / 26)) letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  return letters;
}

/**
 * The first row number of a range the API answered (`'Q1'!A7:C7` is 7), or null when
 * it names none. The part after the last `!` is the cells: a title may hold `!`, a cell reference never does.
 */
export function firstRowOf(range: string): number | null {
  const cells = range.slice(range.lastIndexOf('!') + 1);
  const match = /^\$?[A-Za-z]*\$?(\d+)/.exec(cells);
  return match ? Number(match[1]) : null;
}
