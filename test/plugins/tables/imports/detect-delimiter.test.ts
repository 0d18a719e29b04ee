import { detectDelimiter } from '../../../../plugins/tables/imports/detect-delimiter';

describe('detectDelimiter', () => {
  it.each([
    ['comma', 'name,price,day\nwidget,3,2024-01-02\ngadget,4,2024-01-03\n', ','],
    ['semicolon with decimal commas', 'name;price\nwidget;1,5\ngadget;2,25\n', ';'],
    ['tab', 'name\tprice\twho, what\nwidget\t3\tx, y\n', '\t'],
    ['pipe', 'a|b|c\n1|2|3\n', '|'],
    ['a header line alone', 'a;b;c', ';'],
  ])('finds the %s', (_, text, delimiter) => {
    expect(detectDelimiter(text)).toBe(delimiter);
  });

  it('ignores delimiters inside quotes, quoted line breaks included', () => {
    expect(detectDelimiter('name;bio\n"Smith, J";"one, two\nthree, four"\n"Doe, A";x\n')).toBe(';');
  });

  it('ignores blank lines and a byte order mark', () => {
    expect(detectDelimiter('\uFEFFa\tb\n\n1\t2\n\n3\t4\n')).toBe('\t');
  });

  it('falls back to a comma when nothing separates fields', () => {
    expect(detectDelimiter('just one column\nsecond row\n')).toBe(',');
  });
});
