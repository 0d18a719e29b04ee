import type { Egress } from '../../../../../core/egress';
import { MAX_CRAWL_DELAY_MS, RobotsRules, crawlDelayMs } from '../../../../../plugins/tables/imports/website/robots-rules';
import { startSite, testEgress, type TestSite } from './website-test-kit';

describe('crawlDelayMs', () => {
  it('turns a Crawl-delay in seconds into a pause, capped', () => {
    expect(crawlDelayMs(undefined)).toBe(0);
    expect(crawlDelayMs(0)).toBe(0);
    expect(crawlDelayMs(-3)).toBe(0);
    expect(crawlDelayMs(Number.NaN)).toBe(0);
    expect(crawlDelayMs(0.25)).toBe(250);
    expect(crawlDelayMs(2)).toBe(2000);
    expect(crawlDelayMs(120)).toBe(MAX_CRAWL_DELAY_MS);
  });
});

describe('RobotsRules', () => {
  let egress: Egress;
  let site: TestSite | undefined;

  beforeEach(() => {
    egress = testEgress();
  });

  afterEach(async () => {
    await egress.close();
    await site?.close();
  });

  const rulesFor = async (robots: { status?: number; body?: string }) => {
    site = await startSite({ '/robots.txt': { type: 'text/plain', ...robots } });
    return new RobotsRules(egress, 5000);
  };

  it('reads the Crawl-delay of the SwitchboardBot group', async () => {
    const rules = await rulesFor({ body: 'User-agent: *\nCrawl-delay: 30\n\nUser-agent: SwitchboardBot\nCrawl-delay: 0.5\nAllow: /\n' });

    expect(await rules.crawlDelayMs(new URL(`${site!.url}/`))).toBe(500);
  });

  it('fetches the robots.txt of an origin once, however many URLs it is asked about', async () => {
    const rules = await rulesFor({ body: 'User-agent: *\nDisallow: /admin\n' });

    expect(await rules.verdict(new URL(`${site!.url}/`))).toEqual({ allowed: true });
    expect(await rules.verdict(new URL(`${site!.url}/admin/users`))).toEqual({ allowed: false, reason: 'disallowed by robots.txt' });
    expect(await rules.verdict(new URL(`${site!.url}/public?admin=1`))).toEqual({ allowed: true });
    expect(site!.paths()).toEqual(['/robots.txt']);
  });

  it('allows everything when robots.txt is forbidden (403), like any 4xx', async () => {
    const rules = await rulesFor({ status: 403 });

    expect(await rules.verdict(new URL(`${site!.url}/anything`))).toEqual({ allowed: true });
  });

  it('disallows everything when robots.txt answers 429, which asks the crawler to back off', async () => {
    const rules = await rulesFor({ status: 429 });

    expect(await rules.verdict(new URL(`${site!.url}/`))).toEqual({
      allowed: false,
      reason: `the robots.txt of ${site!.url} could not be read (HTTP 429); without it nothing there is crawled`,
    });
  });
});
