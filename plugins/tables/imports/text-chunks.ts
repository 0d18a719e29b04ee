/**
 * Splits long text (a PDF page, a web page) into chunks a search hit can quote: about
 * `size` characters each, cut at a paragraph, else a sentence, else a word boundary,
 * never inside a word. Whitespace runs are collapsed; empty chunks are dropped.
 */
export function chunkText(text: string, size = 1000): string[] {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
    .filter((paragraph) => paragraph !== '');
  const chunks: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim() !== '') chunks.push(current.trim());
    current = '';
  };
  for (const paragraph of paragraphs) {
    if (current !== '' && current.length + 1 + paragraph.length > size) flush();
    if (paragraph.length <= size) {
      current = current === '' ? paragraph : `${current}\n${paragraph}`;
      continue;
    }
    // A paragraph longer than a chunk: cut it at sentence ends, then at spaces.
    for (const piece of splitLong(paragraph, size)) {
      if (current !== '' && current.length + 1 + piece.length > size) flush();
      current = current === '' ? piece : `${current} ${piece}`;
    }
  }
  flush();
  return chunks;
}

function splitLong(paragraph: string, size: number): string[] {
  const sentences = paragraph.match(/[^.!?]+[.!?]+(\s|$)|[^.!?]+$/g) ?? [paragraph];
  const pieces: string[] = [];
  for (const sentence of sentences.map((s) => s.trim()).filter(Boolean)) {
    if (sentence.length <= size) {
      pieces.push(sentence);
      continue;
    }
    let rest = sentence;
    while (rest.length > size) {
      const cut = rest.lastIndexOf(' ', size);
      const at = cut > size / 2 ? cut : size;
      pieces.push(rest.slice(0, at).trim());
      rest = rest.slice(at).trim();
    }
    if (rest !== '') pieces.push(rest);
  }
  return pieces;
}
