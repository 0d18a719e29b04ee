import { columnLetter, firstRowOf, quoteTitle, rangeIn } from '../../../plugins/app-google-sheets/a1';
import { driveLiteral } from '../../../plugins/app-google-sheets/client';
import { columnsOf, rowObject } from '../../../plugins/app-google-sheets/worksheet';

describe('A1 notation', () => {
  it('names columns by letters: A..Z, then AA, AZ, BA, ZZ, AAA', () => {
    expect([0, 1, 25, 26, 51, 52, 701, 702].map(columnLetter)).toEqual(['A', 'B', 'Z', 'AA', 'AZ', 'BA', 'ZZ', 'AAA']);
  });

  it('always quotes a worksheet title, doubling the quotes inside', () => {
    expect(quoteTitle('Sheet1')).toBe("'Sheet1'");
    expect(rangeIn("Bob's leads!", '1:1')).toBe("'Bob''s leads!'!1:1");
  });

  it('reads the first row of a range the API answers, whatever the title holds', () => {
    expect(firstRowOf("'Q1 leads'!A7:C7")).toBe(7);
    expect(firstRowOf("'It''s!here'!B12")).toBe(12);
    expect(firstRowOf('Sheet1!$A$3:$C$3')).toBe(3);
    expect(firstRowOf('Sheet1!A:C')).toBeNull();
  });
});

describe('Drive query literals', () => {
  it('escapes the backslash, then the quote, so typed text cannot end the literal', () => {
    expect(driveLiteral('plain')).toBe("'plain'");
    expect(driveLiteral("quinn's paper\\essay")).toBe("'quinn\\'s paper\\\\essay'");
  });
});

describe('columns of a header row', () => {
  it('keys columns by header, an empty header by its letter, a repeated header with its letter', () => {
    const columns = columnsOf([' Name ', 'Email', '', 'Email'], 5);
    expect(columns.map((column) => column.key)).toEqual(['Name', 'Email', 'C', 'Email (D)', 'E']);
    // Headed columns always appear; a headless one only when its cell holds something.
    expect(rowObject(columns, ['Ada', '', '', 'ada@work.example'])).toEqual({ Name: 'Ada', Email: '', 'Email (D)': 'ada@work.example' });
    expect(rowObject(columns, ['Ada', 'a@example.com', 'note'])).toEqual({ Name: 'Ada', Email: 'a@example.com', C: 'note', 'Email (D)': '' });
  });
});
