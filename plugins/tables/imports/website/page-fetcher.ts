import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { EgressError, EgressTimeoutError, type Egress, type EgressResponse } from '../../../../core';
import { CRAWLER_HEADERS } from './crawler-identity';
import type { RobotsRules } from './robots-rules';
import { resolveLink, siteOf } from './site-urls';

export type FetchOutcome =
  /** `url` is where the page was found, after redirects. */
  | { kind: 'html'; url: URL; body: Buffer; charset: string | undefined }
  /** Fetched, but not a page of the site to read (not HTML, or redirected away or to a page already crawled). */
  | { kind: 'skipped'; url: URL; reason: string };

/** A page that could not be fetched; the message says why in a few words (`HTTP 500 Internal Server Error`). */
export class PageFetchError extends Error {}

const MAX_REDIRECTS = 5;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches the pages of a crawl through egress (its address checks and size cap), one
 * request at a time, spaced by the site's Crawl-delay. Redirects are followed here
 * rather than by egress, so each hop can be held to the site and to robots.txt.
 */
export class PageFetcher {
  private lastRequestAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly egress: Egress,
    private readonly robots: RobotsRules,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Fetches `start`, which robots.txt allows (the caller checked). Redirects may lead
   * within `site` only (null: anywhere, for the start page, whose landing place defines
   * the site); `claim` marks a redirect's target as crawled and says whether it was new.
   * The page timeout covers the whole chain. Throws PageFetchError.
   */
  async fetch(start: URL, site: string | null, claim: (url: URL) => boolean): Promise<FetchOutcome> {
    let url = start;
    let deadline: number | undefined;
    for (let redirects = 0; ; redirects++) {
      await this.pace(url);
      deadline ??= performance.now() + this.timeoutMs;
      const response = await this.request(url, deadline);
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.status) || typeof location !== 'string') return outcomeOf(url, response);
      if (redirects >= MAX_REDIRECTS) throw new PageFetchError(`more than ${MAX_REDIRECTS} redirects`);
      const next = resolveLink(location, url);
      if (next === null) throw new PageFetchError('redirects to a URL that is not http(s)');
      if (site !== null && siteOf(next) !== site) return { kind: 'skipped', url, reason: `redirects to another site (${next.origin})` };
      if (!claim(next)) return { kind: 'skipped', url, reason: `redirects to ${next.href}, crawled on its own` };
      const verdict = await this.robots.verdict(next);
      if (!verdict.allowed) return { kind: 'skipped', url, reason: `redirects to ${next.href}, ${verdict.reason}` };
      url = next;
    }
  }

  private async request(url: URL, deadline: number): Promise<EgressResponse> {
    const remaining = Math.round(deadline - performance.now());
    if (remaining <= 0) throw new PageFetchError(`no complete answer within ${this.timeoutMs} ms`);
    try {
      return await this.egress.request(url, { headers: { ...CRAWLER_HEADERS, accept: ACCEPT }, timeoutMs: remaining, maxRedirects: 0 });
    } catch (error) {
      if (error instanceof EgressTimeoutError && error.phase === 'total') throw new PageFetchError(`no complete answer within ${this.timeoutMs} ms`);
      if (error instanceof EgressError) throw new PageFetchError(error.message);
      throw error;
    }
  }

  /** Waits out the Crawl-delay of the site since the previous request. */
  private async pace(url: URL): Promise<void> {
    const wait = this.lastRequestAt + (await this.robots.crawlDelayMs(url)) - performance.now();
    if (wait > 0) await sleep(wait);
    this.lastRequestAt = performance.now();
  }
}

function outcomeOf(url: URL, response: EgressResponse): FetchOutcome {
  if (response.status < 200 || response.status > 299) {
    const text = STATUS_CODES[response.status];
    throw new PageFetchError(`HTTP ${response.status}${text ? ` ${text}` : ''}`);
  }
  const header = response.headers['content-type'];
  const contentType = (Array.isArray(header) ? header[0] : header) ?? '';
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  const html = mediaType === '' ? looksLikeHtml(response.body) : HTML_TYPES.has(mediaType);
  if (!html) return { kind: 'skipped', url, reason: `not an HTML page (${mediaType || 'no content-type'})` };
  return { kind: 'html', url, body: response.body, charset };
}

/** For a response without a content-type: whether it starts like an HTML document. */
function looksLikeHtml(body: Buffer): boolean {
  return /^\s*(<!doctype html|<html[\s>])/i.test(body.subarray(0, 256).toString('latin1').replace(/^\uFEFF|^ï»¿/, ''));
}
