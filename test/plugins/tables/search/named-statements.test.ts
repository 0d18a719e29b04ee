import { named, uuidArray } from '../../../../plugins/tables/search/sql-values';

describe('named statements', () => {
  it('turn :name parameters into ?, in order, a name used twice giving its value twice', () => {
    const statement = named<'tenant' | 'table'>('select 1 from t where tenant_uuid = :tenant and uuid = :table and owner = :tenant');
    expect(statement.text).toBe('select 1 from t where tenant_uuid = ? and uuid = ? and owner = ?');
    expect(statement.params({ tenant: 'a', table: 'b' })).toEqual(['a', 'b', 'a']);
  });

  it('leave ::casts and quoted literals alone (a POSIX class is no parameter)', () => {
    const statement = named<'list'>(`select :list::uuid[], w !~ '[[:digit:][:punct:]]', 'it''s :not_one' from t`);
    expect(statement.text).toBe(`select ?::uuid[], w !~ '[[:digit:][:punct:]]', 'it''s :not_one' from t`);
    expect(statement.params({ list: '{}' })).toEqual(['{}']);
  });

  it('refuse a ? of their own (the connection would take it for a parameter)', () => {
    expect(() => named(`select '{"a":1}'::jsonb ? 'a'`)).toThrow(/may not contain/);
  });
});

describe('uuidArray', () => {
  it('makes an array literal of uuids and refuses anything else', () => {
    expect(uuidArray(['01960000-0000-7000-8000-000000000001', '01960000-0000-7000-8000-000000000002'])).toBe(
      '{01960000-0000-7000-8000-000000000001,01960000-0000-7000-8000-000000000002}',
    );
    expect(uuidArray([])).toBe('{}');
    expect(() => uuidArray(['a,b'])).toThrow(/not a uuid/);
  });
});
