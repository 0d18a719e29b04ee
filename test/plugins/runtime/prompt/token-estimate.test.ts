import { estimateTokens, messageTokens } from '../../../../plugins/runtime/prompt';

describe('estimateTokens', () => {
  it('counts a quarter token a character, rounded up, plus four a message', () => {
    expect(messageTokens(0)).toBe(4);
    expect(messageTokens(1)).toBe(5);
    expect(messageTokens(8)).toBe(6);
    expect(messageTokens(9)).toBe(7);
    expect(
      estimateTokens([
        { role: 'system', content: 'x'.repeat(40) },
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'a', name: 'b', arguments: {} }] },
      ]),
    ).toBe(14 + 6 + messageTokens(JSON.stringify([{ id: 'a', name: 'b', arguments: {} }]).length));
  });
});
