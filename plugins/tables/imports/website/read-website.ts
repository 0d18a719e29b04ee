import type { ColumnType } from '../../model/column-types';
import { ImportSourceError, type ImportItem, type ImportReader, type ImportReaderContext } from '../import-reader';
import { chunkText } from '../text-chunks';
import { CrawlFrontier } from './crawl-frontier';
import { PageFetchError, PageFetcher } from './page-fetcher';
import { readPageText } from './page-text';
import { RobotsRules } from './robots-rules';
import { namesFile, resolveLink, siteOf } from './site-urls';

/**
 * The columns of a website import. `chunk` numbers the pieces of one page from 1, so a
 * long page can be read back in order from its records.
 */
const COLUMN_NAMES = ['url', 'title', 'content', 'chunk'];
const COLUMN_TYPES: ColumnType[] = ['url', 'text', 'text', 'number'];

/**
 * Crawls a website from `import.options.url` and yields one row per chunk of each page's
 * main text (see chunkText). Breadth first, within the site of the start page (see
 * siteOf: same host and port, http and https alike), each page once, up to
 * `crawl.maxDepth` links away and `crawl.maxPages` fetches (a fetch that turns out
 * not to be HTML counts too: the limit bounds the requests made), honouring robots.txt
 * (see RobotsRules) and waiting `crawl.pageTimeoutMs` at most per page.
 *
 * The start page's redirects may lead anywhere (example.com -> www.example.com is
 * common) and the site is where they land; later redirects are followed within the
 * site only. Links to files that are not pages (.pdf, images, archives) are not fetched.
 *
 * Rows are numbered by page (the nth page fetched), so a row error names its page. A
 * start page that cannot be crawled fails the import (ImportSourceError); a later page
 * that fails is reported as a bad row and the crawl goes on. A page skipped on purpose
 * (off-site redirect, not HTML, disallowed) is not an error. Progress counts pages,
 * out of the page limit or the pages known so far, whichever is smaller.
 */
export const readWebsite: ImportReader = async function* (context: ImportReaderContext): AsyncGenerator<ImportItem> {
  const { egress, crawl } = context;
  const start = startUrlOf(context.import.options);
  yield { kind: 'columns', names: COLUMN_NAMES, types: COLUMN_TYPES };

  const robots = new RobotsRules(egress, crawl.pageTimeoutMs);
  const fetcher = new PageFetcher(egress, robots, crawl.pageTimeoutMs);
  const frontier = new CrawlFrontier(crawl.maxDepth);
  frontier.offer(start, 0);
  let site: string | null = null;
  let pages = 0;
  for (let next = frontier.next(); next && pages < crawl.maxPages; next = frontier.next()) {
    const isStart = site === null;
    const verdict = await robots.verdict(next.url);
    if (!verdict.allowed) {
      if (isStart) throw new ImportSourceError(`Cannot crawl ${next.url.href}: ${verdict.reason}`);
      continue;
    }
    pages++;
    try {
      const outcome = await fetcher.fetch(next.url, site, (url) => frontier.claim(url));
      if (outcome.kind === 'skipped') {
        if (isStart) throw new ImportSourceError(`Cannot crawl ${next.url.href}: ${outcome.reason}`);
      } else {
        site ??= siteOf(outcome.url);
        const page = readPageText(outcome.body, outcome.charset, outcome.url);
        for (const link of page.links) if (siteOf(link) === site && !namesFile(link)) frontier.offer(link, next.depth + 1);
        const chunks = chunkText(page.text);
        for (const [index, content] of chunks.entries()) {
          yield { kind: 'row', row: pages, cells: [outcome.url.href, page.title, content, index + 1] };
        }
      }
    } catch (error) {
      if (!(error instanceof PageFetchError)) throw error;
      if (isStart) throw new ImportSourceError(`Cannot crawl ${next.url.href}: ${error.message}`);
      yield { kind: 'bad-row', row: pages, message: `${next.url.href}: ${error.message}` };
    }
    context.progress(pages, Math.min(crawl.maxPages, pages + frontier.pending));
  }
};

function startUrlOf(options: Record<string, unknown>): URL {
  const given = typeof options.url === 'string' ? options.url.trim() : '';
  if (!URL.canParse(given)) throw new ImportSourceError(`"${given}" is not a URL to crawl`);
  const url = resolveLink(given, new URL(given));
  if (url === null) throw new ImportSourceError(`"${given}" is not an http(s) URL to crawl`);
  return url;
}
