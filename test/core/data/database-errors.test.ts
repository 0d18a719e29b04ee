import { ConnectionException } from '@mikro-orm/core';
import { dataErrorOf, isDatabaseUnavailable } from '../../../core/data/database-errors';

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('database errors', () => {
  it('reads a lost connection as the database being unavailable', () => {
    expect(isDatabaseUnavailable(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe(true);
    expect(isDatabaseUnavailable(pgError('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnavailable(new ConnectionException(new Error('Connection terminated unexpectedly')))).toBe(true);
  });

  it('never reads an error about the data as the database being down (classes 22 and 23, and 08P01 for NUL in statement text)', () => {
    for (const [code, message] of [
      ['22021', 'invalid byte sequence for encoding "UTF8": 0x00'],
      ['22P05', 'unsupported Unicode escape sequence'],
      ['23505', 'duplicate key value violates unique constraint "x"'],
      ['08P01', 'invalid message format'],
    ]) {
      const error = Object.assign(new Error('wrapped'), { cause: pgError(code, `${message}\n - detail: Key (slug)=(acme) already exists.`) });
      expect(isDatabaseUnavailable(error)).toBe(false);
      // Only the first line: the detail can name rows and tables.
      expect(dataErrorOf(error)).toEqual({ code, message });
    }
    expect(dataErrorOf(pgError('57P01', 'terminating connection'))).toBeUndefined();
  });
});
