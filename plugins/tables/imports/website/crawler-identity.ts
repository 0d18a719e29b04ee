/** The product token robots.txt groups are matched against (RFC 9309 section 2.2.1). */
export const CRAWLER_TOKEN = 'SwitchboardBot';

/** Sent with every crawl request, so a site's logs and robots.txt can tell the crawler apart. */
export const CRAWLER_HEADERS = { 'user-agent': `${CRAWLER_TOKEN}/1.0` };
