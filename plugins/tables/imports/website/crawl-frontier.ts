import { pageKey } from './site-urls';

export interface QueuedPage {
  url: URL;
  /** Links followed from the start page to reach it (the start page is 0). */
  depth: number;
}

/**
 * The pages a crawl knows of and has not fetched yet, breadth first, each page once:
 * a link back to a page already queued or crawled (a loop, a menu on every page) is
 * dropped, and so is a page deeper than the depth limit.
 */
export class CrawlFrontier {
  private readonly queue: QueuedPage[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly maxDepth: number) {}

  offer(url: URL, depth: number): void {
    if (depth > this.maxDepth || !this.claim(url)) return;
    this.queue.push({ url, depth });
  }

  /** Marks a page as taken (a redirect's target, fetched in place of the link); false when it already was. */
  claim(url: URL): boolean {
    const key = pageKey(url);
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }

  next(): QueuedPage | undefined {
    return this.queue.shift();
  }

  get pending(): number {
    return this.queue.length;
  }
}
