import { LlmRequestError, LlmResponseError, salvageAnswer } from '../../../core';

describe('salvageAnswer', () => {
  it('gives the JSON object of an answer that failed its schema, fenced or not', () => {
    expect(salvageAnswer(new LlmResponseError('does not match', '{"a": 1, "b": "x"}'))).toEqual({ a: 1, b: 'x' });
    expect(salvageAnswer(new LlmResponseError('does not match', '```json\n{"a": [1]}\n```'))).toEqual({ a: [1] });
  });

  it.each([
    ['an answer that is not JSON', new LlmResponseError('not JSON', 'sure, here it is')],
    ['a JSON array', new LlmResponseError('does not match', '[1, 2]')],
    ['a JSON string', new LlmResponseError('does not match', '"yes"')],
    ['no answer', new LlmResponseError('no answer', null)],
    ['another model error', new LlmRequestError('bad key', 401)],
    ['any other error', new Error('{"a": 1}')],
  ])('is null for %s', (_, error) => {
    expect(salvageAnswer(error)).toBeNull();
  });
});
