import { textParts } from '../../../../plugins/channels/outbound/text-parts';

describe('textParts', () => {
  it('leaves a text that fits whole, and any text alone without a limit', () => {
    expect(textParts('Hello there', 20)).toEqual(['Hello there']);
    expect(textParts('x'.repeat(5000), undefined)).toEqual(['x'.repeat(5000)]);
  });

  it('cuts at a paragraph, a line or a space before the limit, every part within it, nothing lost but the whitespace at the cuts', () => {
    const text = 'First paragraph is here.\n\nSecond one follows with more words in it and then some more.';
    const parts = textParts(text, 40);
    expect(parts[0]).toBe('First paragraph is here.');
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(40);
    expect(parts.join(' ').replace(/\s+/g, ' ')).toBe(text.replace(/\s+/g, ' '));
  });

  it('cuts a word longer than a part at the limit', () => {
    expect(textParts('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });
});
