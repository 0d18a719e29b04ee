import { cellValue, inferCellType, isUnstorable } from '../../../../plugins/tables/imports/cell-values';
import { cleanColumnNames } from '../../../../plugins/tables/imports/column-plan';

describe('inferCellType', () => {
  it.each([
    [['1', '2.5', '', '-3e2'], 'number'],
    [['2024-01-02', '2024-03-01T10:00:00Z'], 'date'],
    [['yes', 'No', 'TRUE'], 'boolean'],
    [['https://a.example', 'http://b.example/x'], 'url'],
    [['1', 'two'], 'text'],
    [[1, 2.5, null], 'number'],
    [[1, '2'], 'number'],
    [[true, false], 'boolean'],
    [[new Date('2024-01-02T00:00:00Z')], 'date'],
    [[{ a: 1 }, [1, 2]], 'json'],
    [[{ a: 1 }, 'x'], 'text'],
    [[null, '', '  '], 'text'],
  ])('%j -> %s', (cells, type) => {
    expect(inferCellType(cells)).toBe(type);
  });
});

describe('cellValue', () => {
  it('parses text and takes native values that fit', () => {
    expect(cellValue('number', '3.5')).toEqual({ ok: true, value: 3.5 });
    expect(cellValue('number', 4)).toEqual({ ok: true, value: 4 });
    expect(cellValue('boolean', 1)).toEqual({ ok: true, value: true });
    expect(cellValue('date', new Date('2024-01-02T00:00:00Z'))).toEqual({ ok: true, value: '2024-01-02' });
    expect(cellValue('date', new Date('2024-01-02T10:30:00Z'))).toEqual({ ok: true, value: '2024-01-02T10:30:00.000Z' });
    expect(cellValue('text', 42)).toEqual({ ok: true, value: '42' });
    expect(cellValue('text', { a: 1 })).toEqual({ ok: true, value: '{"a":1}' });
    expect(cellValue('json', [1, 2])).toEqual({ ok: true, value: [1, 2] });
    expect(cellValue('url', '  ')).toEqual({ ok: true, value: null });
  });

  it('refuses what does not fit, saying why', () => {
    expect(cellValue('number', 'abc')).toEqual({ ok: false, message: '"abc" is not a number' });
    expect(cellValue('number', { a: 1 })).toEqual({ ok: false, message: 'an object or array is not a number' });
    expect(cellValue('url', 'ftp://x')).toMatchObject({ ok: false });
  });
});

describe('isUnstorable', () => {
  it('finds NUL and unpaired surrogates at any depth, and lets pairs through', () => {
    expect(isUnstorable('a\u0000b')).toBe(true);
    expect(isUnstorable({ a: ['x', '\ud800'] })).toBe(true);
    expect(isUnstorable('emoji 😀')).toBe(false);
    expect(isUnstorable({ 'k\u0000': 1 })).toBe(true);
  });
});

describe('cleanColumnNames', () => {
  it('names empty columns by position, trims, and keeps repeated names apart', () => {
    expect(cleanColumnNames([' name ', '', 'Name', 'name', 'x'.repeat(120)])).toEqual(['name', 'column_2', 'Name_2', 'name_3', 'x'.repeat(100)]);
  });
});
