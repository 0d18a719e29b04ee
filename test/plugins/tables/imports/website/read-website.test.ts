import type { Egress } from '../../../../../core/egress';
import { ImportSourceError } from '../../../../../plugins/tables/imports/import-reader';
import { crawl, page, startSite, testEgress, type Route, type TestSite } from './website-test-kit';

describe('readWebsite', () => {
  let egress: Egress;
  const sites: TestSite[] = [];
  const site = async (routes: Record<string, Route>) => {
    const started = await startSite(routes);
    sites.push(started);
    return started;
  };

  beforeEach(() => {
    egress = testEgress({ 'site.test': '127.0.0.1', 'www.site.test': '127.0.0.1', 'blog.site.test': '127.0.0.1' });
  });

  afterEach(async () => {
    await egress.close();
    await Promise.all(sites.splice(0).map((started) => started.close()));
  });

  it('declares its columns first, then yields a row per chunk of each page with url, title, content and chunk number', async () => {
    const web = await site({ '/': page('Home', 'Welcome to the test site.') });

    const result = await crawl(egress, `${web.url}/`);

    expect(result.items[0]).toEqual({ kind: 'columns', names: ['url', 'title', 'content', 'chunk'], types: ['url', 'text', 'text', 'number'] });
    expect(result.rows).toEqual([{ kind: 'row', row: 1, cells: [`${web.url}/`, 'Home', expect.stringContaining('Welcome to the test site.'), 1] }]);
  });

  it('visits each page of a link loop once, breadth first, and ignores fragments, mailto:, javascript: and tel: links', async () => {
    const routes: Record<string, Route> = {
      '/': page('A', 'Page A.', ['/b', '/b#details', '#top', 'mailto:info@site.test', 'javascript:void(0)', 'tel:+4930123']),
      '/b': page('B', 'Page B.', ['/', '/c', './']),
    };
    const web = await site(routes);
    // An absolute link back to the start page closes the loop too.
    routes['/c'] = page('C', 'Page C.', ['/b', `${web.url}/`]);

    const result = await crawl(egress, `${web.url}/`);

    expect(result.pageUrls).toEqual([`${web.url}/`, `${web.url}/b`, `${web.url}/c`]);
    expect(web.paths()).toEqual(['/robots.txt', '/', '/b', '/c']);
    expect(result.badRows).toEqual([]);
  });

  it('reports progress in pages after each page, out of the pages known so far or the page limit', async () => {
    const web = await site({
      '/': page('Index', 'Index.', ['/one', '/two', '/three']),
      '/one': page('One', 'One.'),
      '/two': page('Two', 'Two.'),
      '/three': page('Three', 'Three.'),
    });

    const result = await crawl(egress, `${web.url}/`, { maxPages: 3 });

    expect(result.progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    const unlimited = await crawl(egress, `${web.url}/`);
    expect(unlimited.progress).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
  });

  describe('robots.txt', () => {
    it('is fetched once, and a path it disallows is never requested', async () => {
      const web = await site({
        '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private\n' },
        '/': page('Home', 'Public home.', ['/private/secret', '/about']),
        '/about': page('About', 'About us.', ['/private/other']),
        '/private/secret': page('Secret', 'Nobody should read this.'),
        '/private/other': page('Other', 'Nor this.'),
      });

      const result = await crawl(egress, `${web.url}/`);

      expect(result.pageUrls).toEqual([`${web.url}/`, `${web.url}/about`]);
      expect(web.paths()).toEqual(['/robots.txt', '/', '/about']);
      expect(result.badRows).toEqual([]);
    });

    it('is applied to where a redirect leads too', async () => {
      const web = await site({
        '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private\n' },
        '/': page('Home', 'Home.', ['/shortcut']),
        '/shortcut': { status: 302, headers: { location: '/private/page' } },
        '/private/page': page('Private', 'Private.'),
      });

      const result = await crawl(egress, `${web.url}/`);

      expect(result.pageUrls).toEqual([`${web.url}/`]);
      expect(web.paths()).toEqual(['/robots.txt', '/', '/shortcut']);
      expect(result.badRows).toEqual([]);
    });

    it('applies the SwitchboardBot group where there is one, instead of the * group', async () => {
      const web = await site({
        '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /\n\nUser-agent: SwitchboardBot\nDisallow: /drafts\n' },
        '/': page('Home', 'Home.', ['/drafts', '/published']),
        '/drafts': page('Drafts', 'Draft.'),
        '/published': page('Published', 'Published.'),
      });

      const result = await crawl(egress, `${web.url}/`);

      expect(result.pageUrls).toEqual([`${web.url}/`, `${web.url}/published`]);
      expect(web.paths()).not.toContain('/drafts');
    });

    it('fails the import when it disallows the start page, without requesting it', async () => {
      const web = await site({
        '/robots.txt': { type: 'text/plain', body: 'User-agent: SwitchboardBot\nDisallow: /\n' },
        '/': page('Home', 'Home.'),
      });

      const failure = crawl(egress, `${web.url}/`);

      await expect(failure).rejects.toThrow(ImportSourceError);
      await expect(failure).rejects.toThrow(`Cannot crawl ${web.url}/: disallowed by robots.txt`);
      expect(web.paths()).toEqual(['/robots.txt']);
    });

    it('is taken to disallow everything when the server fails to answer it (5xx), as RFC 9309 asks', async () => {
      const web = await site({ '/robots.txt': { status: 500, body: 'oops' }, '/': page('Home', 'Home.') });

      const failure = crawl(egress, `${web.url}/`);

      await expect(failure).rejects.toThrow(`Cannot crawl ${web.url}/: the robots.txt of ${web.url} could not be read (HTTP 500)`);
      expect(web.paths()).toEqual(['/robots.txt']);
    });

    it('allows everything when it does not exist (404)', async () => {
      const web = await site({ '/': page('Home', 'Home.', ['/next']), '/next': page('Next', 'Next.') });

      const result = await crawl(egress, `${web.url}/`);

      expect(result.pageUrls).toEqual([`${web.url}/`, `${web.url}/next`]);
    });
  });

  describe('limits', () => {
    it('follows links up to the depth limit (the start page is depth 0)', async () => {
      const web = await site({
        '/': page('Depth 0', 'Zero.', ['/d1']),
        '/d1': page('Depth 1', 'One.', ['/d2']),
        '/d2': page('Depth 2', 'Two.', ['/d3']),
        '/d3': page('Depth 3', 'Three.'),
      });

      const result = await crawl(egress, `${web.url}/`, { maxDepth: 2 });

      expect(result.pageUrls).toEqual([`${web.url}/`, `${web.url}/d1`, `${web.url}/d2`]);
      expect(web.paths()).not.toContain('/d3');
      const startOnly = await crawl(egress, `${web.url}/`, { maxDepth: 0 });
      expect(startOnly.pageUrls).toEqual([`${web.url}/`]);
    });

    it('fetches no more pages than the page limit', async () => {
      const links = Array.from({ length: 10 }, (_, index) => `/p${index}`);
      const routes: Record<string, Route> = { '/': page('Index', 'Index.', links) };
      for (const link of links) routes[link] = page(link, `Page ${link}.`);
      const web = await site(routes);

      const result = await crawl(egress, `${web.url}/`, { maxPages: 3 });

      expect(result.pageUrls).toEqual([`${web.url}/`, `${web.url}/p0`, `${web.url}/p1`]);
      expect(web.paths().filter((path) => path !== '/robots.txt')).toEqual(['/', '/p0', '/p1']);
    });
  });

  describe('the site', () => {
    it('ignores links to another port (another site) and to other host names, subdomains included', async () => {
      const other = await site({ '/': page('Elsewhere', 'Another site.') });
      const routes: Record<string, Route> = {};
      const web = await site(routes);
      const base = `http://site.test:${web.port}`;
      routes['/'] = page('Home', 'Home.', [
        `${other.url}/`,
        `http://site.test:${other.port}/`,
        `http://blog.site.test:${web.port}/`,
        `http://www.site.test:${web.port}/`,
        `${web.url}/`,
        `${base}/same`,
      ]);
      routes['/same'] = page('Same', 'Same site.');

      const result = await crawl(egress, `${base}/`);

      expect(result.pageUrls).toEqual([`${base}/`, `${base}/same`]);
      expect(other.requests).toEqual([]);
      expect(web.requests).toEqual([`site.test:${web.port} /robots.txt`, `site.test:${web.port} /`, `site.test:${web.port} /same`]);
    });

    it('follows a redirect within the site, and not one to another site', async () => {
      const other = await site({ '/landing': page('Elsewhere', 'Another site.') });
      const web = await site({
        '/': page('Home', 'Home.', ['/old', '/away', '/new', '/renamed']),
        '/old': { status: 301, headers: { location: '/target' } },
        '/target': page('Target', 'The page /old moved to.'),
        '/away': { status: 302, headers: { location: `${other.url}/landing` } },
        '/new': page('New', 'The new page.'),
        '/renamed': { status: 308, headers: { location: '/new' } },
      });

      const result = await crawl(egress, `${web.url}/`);

      expect(result.pageUrls).toEqual([`${web.url}/`, `${web.url}/target`, `${web.url}/new`]);
      // /renamed leads to /new, which the crawl fetches once, through its own link.
      expect(web.paths()).toEqual(['/robots.txt', '/', '/old', '/target', '/away', '/new', '/renamed']);
      expect(other.requests).toEqual([]);
      expect(result.badRows).toEqual([]);
    });

    it('takes the site from where the start page lands after its redirects', async () => {
      const routes: Record<string, Route> = {};
      const web = await site(routes);
      const bare = `http://site.test:${web.port}`;
      const www = `http://www.site.test:${web.port}`;
      routes[`site.test:${web.port} /`] = { status: 301, headers: { location: `${www}/` } };
      routes[`www.site.test:${web.port} /`] = page('Home', 'Home.', ['/about', `${bare}/contact`]);
      routes['/about'] = page('About', 'About.');
      routes['/contact'] = page('Contact', 'Contact.');

      const result = await crawl(egress, `${bare}/`);

      expect(result.pageUrls).toEqual([`${www}/`, `${www}/about`]);
      expect(web.requests).toEqual([
        `site.test:${web.port} /robots.txt`,
        `site.test:${web.port} /`,
        `www.site.test:${web.port} /robots.txt`,
        `www.site.test:${web.port} /`,
        `www.site.test:${web.port} /about`,
      ]);
    });
  });

  describe('what is not a page', () => {
    it('does not fetch links to files, and skips a response that is not HTML without reporting it', async () => {
      const web = await site({
        '/': page('Home', 'Home.', ['/report.pdf', '/logo.PNG', '/download', '/next']),
        '/report.pdf': { type: 'application/pdf', body: '%PDF-1.4' },
        '/download': { type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
        '/next': page('Next', 'Next.'),
      });

      const result = await crawl(egress, `${web.url}/`);

      expect(result.pageUrls).toEqual([`${web.url}/`, `${web.url}/next`]);
      expect(result.badRows).toEqual([]);
      expect(web.paths()).toEqual(['/robots.txt', '/', '/download', '/next']);
    });

    it('reads a page served without a content-type when it starts like HTML', async () => {
      const web = await site({ '/': { type: '', body: page('Bare', 'No content type here.') } });

      const result = await crawl(egress, `${web.url}/`);

      expect(result.rows.map((row) => row.cells[2])).toEqual([expect.stringContaining('No content type here.')]);
    });
  });

  describe('extraction', () => {
    it('keeps the main text and leaves out navigation, scripts, headers and footers', async () => {
      const web = await site({
        '/': `<!doctype html><html><head><title>Widgets &amp; Gadgets</title><style>p { color: red }</style></head><body>
          <header><a href="/">Site banner</a></header>
          <nav><a href="/shop">Menu item</a></nav>
          <main><h2>Our widgets</h2><p>Widgets are&nbsp;small &lt;useful&gt; things.</p><script>trackVisitor()</script></main>
          <aside>Sidebar advert</aside>
          <footer>Copyright footer</footer>
        </body></html>`,
        '/shop': page('Shop', 'Buy widgets.'),
      });

      const result = await crawl(egress, `${web.url}/`);

      const home = result.rows.filter((row) => row.cells[0] === `${web.url}/`);
      expect(home).toHaveLength(1);
      expect(home[0].cells[1]).toBe('Widgets & Gadgets');
      expect(home[0].cells[2]).toBe('Our widgets\nWidgets are small <useful> things.');
      // Navigation is not content, but its links are still followed.
      expect(result.pageUrls).toContain(`${web.url}/shop`);
    });

    it('splits a long page into chunks at paragraph ends, numbered from 1', async () => {
      const paragraphs = Array.from({ length: 12 }, (_, index) => `<p>Paragraph ${index} ${'lorem ipsum dolor sit amet '.repeat(10)}end.</p>`);
      const web = await site({ '/': `<html><head><title>Long</title></head><body>${paragraphs.join('\n')}</body></html>` });

      const result = await crawl(egress, `${web.url}/`);

      expect(result.rows.length).toBeGreaterThan(2);
      expect(result.rows.map((row) => row.cells[3])).toEqual(result.rows.map((_, index) => index + 1));
      for (const row of result.rows) {
        expect(row.cells.slice(0, 2)).toEqual([`${web.url}/`, 'Long']);
        const content = row.cells[2] as string;
        expect(content.length).toBeLessThanOrEqual(1000);
        expect(content).toMatch(/^Paragraph \d+ /);
        expect(content).toMatch(/end\.$/);
      }
      const text = result.rows.map((row) => row.cells[2]).join('\n');
      for (let index = 0; index < 12; index++) expect(text).toContain(`Paragraph ${index} `);
    });
  });

  describe('failures', () => {
    it('reports a sub-page that fails as a bad row numbered by page, and goes on', async () => {
      const web = await site({
        '/': page('Home', 'Home.', ['/broken', '/missing', '/fine']),
        '/broken': { status: 500, body: 'boom' },
        '/fine': page('Fine', 'Fine.'),
      });

      const result = await crawl(egress, `${web.url}/`);

      expect(result.badRows).toEqual([
        { kind: 'bad-row', row: 2, message: `${web.url}/broken: HTTP 500 Internal Server Error` },
        { kind: 'bad-row', row: 3, message: `${web.url}/missing: HTTP 404 Not Found` },
      ]);
      expect(result.rows.map((row) => [row.row, row.cells[0]])).toEqual([
        [1, `${web.url}/`],
        [4, `${web.url}/fine`],
      ]);
    });

    it('gives up on a page that does not answer within the page timeout', async () => {
      const web = await site({ '/': page('Home', 'Home.', ['/slow', '/fast']), '/slow': { hang: true }, '/fast': page('Fast', 'Fast.') });

      const result = await crawl(egress, `${web.url}/`, { pageTimeoutMs: 300 });

      expect(result.badRows).toEqual([{ kind: 'bad-row', row: 2, message: `${web.url}/slow: no complete answer within 300 ms` }]);
      expect(result.pageUrls).toEqual([`${web.url}/`, `${web.url}/fast`]);
    });

    it('fails the import when the start page answers an error', async () => {
      const web = await site({});

      await expect(crawl(egress, `${web.url}/gone`)).rejects.toThrow(new ImportSourceError(`Cannot crawl ${web.url}/gone: HTTP 404 Not Found`));
    });

    it('fails the import when the start page is not HTML', async () => {
      const web = await site({ '/paper': { type: 'application/pdf', body: '%PDF-1.4' } });

      await expect(crawl(egress, `${web.url}/paper`)).rejects.toThrow(new ImportSourceError(`Cannot crawl ${web.url}/paper: not an HTML page (application/pdf)`));
    });

    it('fails the import when nothing answers at the start URL', async () => {
      const web = await site({});
      const url = `${web.url}/`;
      await web.close();

      const failure = crawl(egress, url);

      await expect(failure).rejects.toThrow(ImportSourceError);
      await expect(failure).rejects.toThrow(new RegExp(`^Cannot crawl ${url}: ${web.url} could not be reached \\(.*ECONNREFUSED.*\\)$`));
    });

    it('fetches through egress, whose address checks refuse a site on a private network', async () => {
      const web = await site({ '/': page('Home', 'Home.') });
      const strict = testEgress({}, []);

      const failure = crawl(strict, `${web.url}/`);

      await expect(failure).rejects.toThrow(`Cannot crawl ${web.url}/: ${web.url} could not be reached (outbound call refused: 127.0.0.1 is loopback (127.0.0.0/8))`);
      await strict.close();
      expect(web.requests).toEqual([]);
    });

    it('fails the import when the start URL is not an http(s) URL', async () => {
      await expect(crawl(egress, 'ftp://site.test/')).rejects.toThrow(new ImportSourceError('"ftp://site.test/" is not an http(s) URL to crawl'));
      await expect(crawl(egress, 'not a url')).rejects.toThrow(new ImportSourceError('"not a url" is not a URL to crawl'));
    });
  });
});
