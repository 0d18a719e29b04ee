import robotsParser from 'robots-parser';
import { EgressError, type Egress } from '../../../../core';
import { CRAWLER_HEADERS, CRAWLER_TOKEN } from './crawler-identity';

export type RobotsVerdict = { allowed: true } | { allowed: false; reason: string };

interface OriginRules {
  verdict(url: URL): RobotsVerdict;
  crawlDelayMs: number;
}

/**
 * The longest pause between two requests a site's Crawl-delay gets. A larger delay is
 * cut to this: the crawl still goes slower than it would without one, and a 50-page
 * import ends in minutes rather than hours.
 */
export const MAX_CRAWL_DELAY_MS = 5000;

/** A robots.txt Crawl-delay (seconds) as the pause the crawl makes, capped at MAX_CRAWL_DELAY_MS. */
export function crawlDelayMs(seconds: number | undefined): number {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.min(Math.round(seconds * 1000), MAX_CRAWL_DELAY_MS);
}

/**
 * robots.txt rules (RFC 9309) for the origins a crawl touches, each fetched once through
 * egress when the crawl first needs it. The group for `SwitchboardBot` applies where the
 * file has one, else the `*` group. As the RFC says:
 * - a 4xx answer (no robots.txt) allows everything; 429 is the exception, since it asks
 *   the crawler to back off;
 * - a 5xx answer, a 429, or a failure to get any answer (network, timeout, refusal)
 *   means the rules are unknown, and then nothing of that origin is crawled.
 */
export class RobotsRules {
  private readonly origins = new Map<string, Promise<OriginRules>>();

  constructor(
    private readonly egress: Egress,
    private readonly timeoutMs: number,
  ) {}

  async verdict(url: URL): Promise<RobotsVerdict> {
    return (await this.rulesOf(url)).verdict(url);
  }

  async crawlDelayMs(url: URL): Promise<number> {
    return (await this.rulesOf(url)).crawlDelayMs;
  }

  private rulesOf(url: URL): Promise<OriginRules> {
    let rules = this.origins.get(url.origin);
    if (!rules) {
      rules = this.fetchRules(url.origin);
      this.origins.set(url.origin, rules);
    }
    return rules;
  }

  private async fetchRules(origin: string): Promise<OriginRules> {
    const robotsUrl = `${origin}/robots.txt`;
    let status: number;
    let text = '';
    try {
      // Redirects are followed (the RFC asks for at least five); egress checks each hop's address.
      const response = await this.egress.request(robotsUrl, { headers: CRAWLER_HEADERS, timeoutMs: this.timeoutMs });
      status = response.status;
      text = response.text();
    } catch (error) {
      if (!(error instanceof EgressError)) throw error;
      // Nothing answered: the site as a whole is out of reach, which says more than naming robots.txt.
      return unreachable(`${origin} could not be reached (${error.message})`);
    }
    if (status >= 200 && status < 300) {
      const robots = robotsParser(robotsUrl, text);
      return {
        verdict: (url) => (robots.isAllowed(url.href, CRAWLER_TOKEN) === false ? { allowed: false, reason: 'disallowed by robots.txt' } : { allowed: true }),
        crawlDelayMs: crawlDelayMs(robots.getCrawlDelay(CRAWLER_TOKEN)),
      };
    }
    if (status >= 400 && status < 500 && status !== 429) return { verdict: () => ({ allowed: true }), crawlDelayMs: 0 };
    return unreachable(`the robots.txt of ${origin} could not be read (HTTP ${status}); without it nothing there is crawled`);
  }
}

function unreachable(reason: string): OriginRules {
  return { verdict: () => ({ allowed: false, reason }), crawlDelayMs: 0 };
}
