import { splitExclusions } from '../../../../plugins/tables/search/lexical-lists';

describe('splitExclusions (websearch syntax)', () => {
  it('splits off -word and -"a phrase" at the start of a word', () => {
    expect(splitExclusions('policy -shipping')).toEqual({ wanted: 'policy ', unwanted: 'shipping' });
    expect(splitExclusions('-"refund policy" costs -fees')).toEqual({ wanted: ' costs ', unwanted: '"refund policy" or fees' });
  });

  it('leaves a hyphen inside a word, and a lone minus, alone', () => {
    expect(splitExclusions('e-mail x - y')).toEqual({ wanted: 'e-mail x - y', unwanted: '' });
  });
});
