import { loadBuffer, type CheerioAPI } from 'cheerio';
import { resolveLink } from './site-urls';

export interface PageText {
  /** From <title>, else the first <h1>; '' when the page has neither. */
  title: string;
  /** The main text, paragraphs separated by blank lines, whitespace collapsed inside them. */
  text: string;
  /** Every http(s) link of the page (navigation included), absolute, without fragments. */
  links: URL[];
}

/** What is never content: code, chrome around the content, forms, embedded media, hidden parts. */
const NOT_CONTENT = [
  'script, style, noscript, template, svg, canvas, iframe, object, embed, video, audio, form',
  'nav, aside, [role=navigation], [role=banner], [role=contentinfo], [role=complementary]',
  '[hidden], [aria-hidden=true]',
].join(', ');

/** Elements a browser lays out as blocks: each becomes a paragraph break. */
const BLOCKS = [
  'address, article, blockquote, br, caption, dd, details, dialog, div, dl, dt, fieldset, figcaption, figure',
  'h1, h2, h3, h4, h5, h6, header, footer, hgroup, hr, li, main, ol, p, pre, section, summary, table, tr, ul',
].join(', ');

/** Marks paragraph breaks in the text while whitespace is still the page's own (U+2029 PARAGRAPH SEPARATOR). */
const BREAK = '\u2029';

/**
 * Reads an HTML page: its title, its main text, its links. Bytes are decoded by the
 * charset the response declares, else the page's <meta charset>, else UTF-8; entities
 * are decoded by the parser.
 */
export function readPageText(body: Buffer, charset: string | undefined, url: URL): PageText {
  const $ = loadBuffer(body, { encoding: { transportLayerEncodingLabel: charset, defaultEncoding: 'utf-8' } });
  const base = baseOf($, url);
  // Links and title first: navigation and the page header are removed from the text below.
  const links = $('a[href], area[href]')
    .toArray()
    .map((element) => resolveLink($(element).attr('href') ?? '', base))
    .filter((link): link is URL => link !== null);
  const title = collapse($('head > title').first().text()) || collapse($('h1').first().text());
  return { title, text: mainText($), links };
}

function mainText($: CheerioAPI): string {
  $(NOT_CONTENT).remove();
  // A site's banner and footer are chrome; an article's own header and footer (headline, byline) are content.
  $('header, footer')
    .filter((_, element) => $(element).closest('article').length === 0)
    .remove();
  const main = $('main, [role=main]').first();
  const root = main.length > 0 ? main : $('article').length > 0 ? $('article') : $('body');
  root.find(BLOCKS).before(BREAK).after(BREAK);
  // Cells of a row are words apart, not glued together.
  root.find('td, th').after(' ');
  return root
    .toArray()
    .map((element) => $(element).text())
    .join(BREAK)
    .split(BREAK)
    .map(collapse)
    .filter((paragraph) => paragraph !== '')
    .join('\n\n');
}

function baseOf($: CheerioAPI, url: URL): URL {
  const href = $('base[href]').first().attr('href');
  return (href !== undefined && resolveLink(href, url)) || url;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
