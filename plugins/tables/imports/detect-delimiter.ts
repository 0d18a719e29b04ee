/** The delimiters detection chooses from, in order of preference on a tie. */
const DETECTED_DELIMITERS = [',', '\t', ';', '|'] as const;

const SAMPLE_LINES = 20;

/**
 * The field separator of CSV-like text, from its first lines: the candidate that
 * appears (outside double quotes) the same number of times on every complete line,
 * the most often; failing that, the one seen most. A comma when nothing fits.
 */
export function detectDelimiter(sample: string): string {
  const lines = countsPerLine(sample);
  let best: { delimiter: string; consistent: boolean; count: number } | undefined;
  for (const delimiter of DETECTED_DELIMITERS) {
    const counts = lines.map((line) => line.get(delimiter) ?? 0);
    const count = counts[0] ?? 0;
    if (count === 0) continue;
    const consistent = counts.every((n) => n === count);
    const total = counts.reduce((sum, n) => sum + n, 0);
    const score = { delimiter, consistent, count: consistent ? count : total };
    if (!best || (score.consistent && !best.consistent) || (score.consistent === best.consistent && score.count > best.count)) best = score;
  }
  return best?.delimiter ?? ',';
}

/** Per complete line (a quoted newline does not end one), how often each candidate appears outside quotes. */
function countsPerLine(sample: string): Array<Map<string, number>> {
  const lines: Array<Map<string, number>> = [];
  let current = new Map<string, number>();
  let blank = true;
  let quoted = false;
  for (const char of sample.replace(/^\uFEFF/, '')) {
    if (char === '"') quoted = !quoted;
    if (!quoted && char === '\n') {
      // Blank lines say nothing about the delimiter.
      if (!blank) lines.push(current);
      if (lines.length === SAMPLE_LINES) return lines;
      current = new Map();
      blank = true;
      continue;
    }
    if (char.trim() !== '') blank = false;
    if (!quoted && (DETECTED_DELIMITERS as readonly string[]).includes(char)) current.set(char, (current.get(char) ?? 0) + 1);
  }
  // The last line may be cut off by the end of the sample: it counts only when it is the only one.
  if (lines.length === 0) lines.push(current);
  return lines;
}
