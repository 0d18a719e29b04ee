/**
 * A reply cut into parts a provider takes (Twilio 1,600 characters, Messenger 2,000): at
 * the last paragraph break, line break or space before the limit, else hard at the limit
 * (a word longer than a whole part). Whitespace at the cuts is dropped, nothing else.
 */
export function textParts(text: string, max: number | undefined): string[] {
  if (!max || text.length <= max) return [text];
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    const cut = [window.lastIndexOf('\n\n'), window.lastIndexOf('\n'), window.lastIndexOf(' ')].find((at) => at > max / 2) ?? max;
    parts.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '') parts.push(rest);
  return parts;
}
