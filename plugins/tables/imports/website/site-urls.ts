/**
 * What counts as one site and one page of it during a crawl.
 *
 * A site is a host name with its port: http://example.com and https://example.com are
 * the same site (each on its scheme's default port), while www.example.com,
 * blog.example.com and example.com:8080 are other sites. The port is part of it
 * because two servers on one host are two sites (they are two origins to a browser).
 */
export function siteOf(url: URL): string {
  // URL leaves `port` empty for the scheme's default port, so http:80 and https:443 match.
  return `${url.hostname}:${url.port}`;
}

/** The key a page is visited once under: its site, path and query (a page reached over http and https is one page). */
export function pageKey(url: URL): string {
  return `${siteOf(url)}${url.pathname}${url.search}`;
}

/**
 * A link's absolute http(s) URL without its fragment, or null for what is not a page
 * to crawl (mailto:, javascript:, tel:, data: and other schemes, or an unparsable href).
 */
export function resolveLink(href: string, base: URL): URL | null {
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  // Credentials written into a link are not ours to send (egress would turn them into Basic auth).
  url.username = '';
  url.password = '';
  return url;
}

/** Extensions of files that are never HTML: links to them are not fetched, saving the page budget. */
const FILE_EXTENSIONS = new Set([
  ...['pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp', 'rtf', 'csv', 'txt', 'json', 'xml', 'rss', 'atom'],
  ...['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'tif', 'tiff'],
  ...['mp3', 'mp4', 'm4a', 'wav', 'ogg', 'webm', 'avi', 'mov', 'mkv', 'flac'],
  ...['zip', 'gz', 'tgz', 'tar', 'rar', '7z', 'bz2', 'xz', 'exe', 'dmg', 'msi', 'apk', 'iso'],
  ...['css', 'js', 'mjs', 'map', 'woff', 'woff2', 'ttf', 'otf', 'eot'],
]);

/** Whether the URL's path names a file that is not a web page (a PDF, an image, an archive). */
export function namesFile(url: URL): boolean {
  const name = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot !== -1 && FILE_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}
