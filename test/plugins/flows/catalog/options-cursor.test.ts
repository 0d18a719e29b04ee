import { decodeCursor, encodeCursor, listDigest, startOf } from '../../../../plugins/flows/catalog/options-cursor';

const option = (value: string) => ({ label: value.toUpperCase(), value });
const list = (...values: string[]) => values.map(option);

describe('the server’s cursor over a list it pages', () => {
  it('is bound to the list and search: params compared as values (their order does not matter), search whatever its case and spaces', () => {
    const digest = listDigest('columns', { table_id: 't1', depth: 2 }, 'Name');
    expect(listDigest('columns', { depth: 2, table_id: 't1' }, '  name ')).toBe(digest);
    expect(listDigest('columns', { table_id: 't2', depth: 2 }, 'Name')).not.toBe(digest);
    expect(listDigest('tables', { table_id: 't1', depth: 2 }, 'Name')).not.toBe(digest);
    expect(listDigest('columns', { table_id: 't1', depth: 2 }, 'Nam')).not.toBe(digest);
    expect(listDigest('columns', {}, null)).toBe(listDigest('columns', undefined, ''));
  });

  it('round-trips, refuses another list’s cursor and anything it did not make, and stays short whatever the values', () => {
    const digest = listDigest('colors', {}, null);
    const sent = list('a', 'b', 'x'.repeat(5000));
    const cursor = encodeCursor(3, sent, digest);
    expect(cursor.length).toBeLessThan(120);
    expect(decodeCursor(cursor, digest)).toEqual({ offset: 3, last: [expect.any(String), expect.any(String), expect.any(String)] });
    expect(decodeCursor(cursor, listDigest('colors', {}, 'red'))).toBe('elsewhere');
    for (const foreign of ['', 'page-2', Buffer.from('offset:100').toString('base64url'), Buffer.from('v1:3:short:abc').toString('base64url')]) expect(decodeCursor(foreign, digest)).toBeNull();
  });

  it('starts after the last option sent wherever it is now, or after the one before it when it is gone', () => {
    const digest = listDigest('colors', {}, null);
    const position = (sent: string[]) => decodeCursor(encodeCursor(sent.length, list(...sent), digest), digest) as Exclude<ReturnType<typeof decodeCursor>, null | 'elsewhere'>;
    const page1 = position(['a', 'b', 'c']);
    expect(startOf(list('a', 'b', 'c', 'd'), null)).toBe(0);
    expect(startOf(list('a', 'b', 'c', 'd'), page1)).toBe(3);
    // Added before: not repeated.
    expect(startOf(list('new', 'a', 'b', 'c', 'd'), page1)).toBe(4);
    // Removed before: nothing skipped.
    expect(startOf(list('b', 'c', 'd'), page1)).toBe(2);
    // The last sent removed: after the one before it.
    expect(startOf(list('a', 'b', 'd'), page1)).toBe(2);
    // None of the last sent left: the same offset, within the list.
    expect(startOf(list('x', 'y', 'z', 'd'), page1)).toBe(3);
    expect(startOf(list('x'), page1)).toBe(1);
    // A value listed twice: the page after the one sent, not the first occurrence.
    expect(startOf(list('c', 'b', 'c', 'd'), position(['c', 'b', 'c']))).toBe(3);
  });
});
