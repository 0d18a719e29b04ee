/** What ts_headline is told to put around a matched word: characters no escaped text contains. */
export const MATCH_START = '\u0001';
export const MATCH_END = '\u0002';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * A headline as the API shows it: the record's text HTML-escaped (it is user data and
 * may well be shown in a page), the matched words in `<b>...</b>`.
 */
export function snippetHtml(headline: string): string {
  return headline
    .replace(/[&<>"']/g, (char) => ESCAPES[char])
    .replaceAll(MATCH_START, '<b>')
    .replaceAll(MATCH_END, '</b>');
}
