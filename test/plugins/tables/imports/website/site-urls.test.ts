import { namesFile, pageKey, resolveLink, siteOf } from '../../../../../plugins/tables/imports/website/site-urls';

const site = (url: string) => siteOf(new URL(url));

describe('site URLs', () => {
  it('counts http and https of one host as one site, and other hosts, subdomains and ports as others', () => {
    expect(site('http://example.com/a')).toBe(site('https://example.com/b'));
    expect(site('http://EXAMPLE.com:80/')).toBe(site('https://example.com:443/'));
    expect(site('http://www.example.com/')).not.toBe(site('http://example.com/'));
    expect(site('http://blog.example.com/')).not.toBe(site('http://example.com/'));
    expect(site('http://example.com:8080/')).not.toBe(site('http://example.com/'));
    expect(site('http://127.0.0.1:8080/')).not.toBe(site('http://127.0.0.1:8081/'));
  });

  it('keys a page by site, path and query, so it is visited once over http and https', () => {
    expect(pageKey(new URL('http://example.com/a?x=1'))).toBe(pageKey(new URL('https://example.com/a?x=1')));
    expect(pageKey(new URL('http://example.com/a?x=1'))).not.toBe(pageKey(new URL('http://example.com/a?x=2')));
    expect(pageKey(new URL('http://example.com'))).toBe(pageKey(new URL('http://example.com/')));
  });

  it('resolves relative links, drops fragments and credentials, and refuses other schemes', () => {
    const base = new URL('https://example.com/docs/intro');
    expect(resolveLink('guide#setup', base)?.href).toBe('https://example.com/docs/guide');
    expect(resolveLink('  /about  ', base)?.href).toBe('https://example.com/about');
    expect(resolveLink('//cdn.example.com/x', base)?.href).toBe('https://cdn.example.com/x');
    expect(resolveLink('http://user:secret@example.com/private', base)?.href).toBe('http://example.com/private');
    for (const href of ['mailto:a@example.com', 'javascript:void(0)', 'tel:+123', 'data:text/html,hi', 'ftp://example.com/f', 'http://[bad']) {
      expect(resolveLink(href, base)).toBeNull();
    }
  });

  it('tells links to files (documents, images, archives) from pages', () => {
    for (const url of ['http://x.test/a.pdf', 'http://x.test/img/Logo.PNG', 'http://x.test/dl/archive.tar.gz?v=2', 'http://x.test/app.js']) {
      expect(namesFile(new URL(url))).toBe(true);
    }
    for (const url of ['http://x.test/', 'http://x.test/page.html', 'http://x.test/about', 'http://x.test/v1.2/docs', 'http://x.test/index.php?f=a.pdf']) {
      expect(namesFile(new URL(url))).toBe(false);
    }
  });
});
