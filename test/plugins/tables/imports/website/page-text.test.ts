import { readPageText } from '../../../../../plugins/tables/imports/website/page-text';

const url = new URL('http://site.test/docs/page');
const read = (html: string, charset?: string) => readPageText(Buffer.from(html), charset, url);

describe('readPageText', () => {
  it('turns block elements into paragraphs, collapses whitespace and decodes entities', () => {
    const { text } = read(`<body><h1>  Big
      title </h1><p>One &amp; only,<b>bold</b>  and <i>it</i>alic&nbsp;&quot;text&quot;.</p><div>Line one<br>line two</div><ul><li>first</li><li>second</li></ul></body>`);

    expect(text).toBe('Big title\n\nOne & only,bold and italic "text".\n\nLine one\n\nline two\n\nfirst\n\nsecond');
  });

  it('keeps blank lines of the source inside a paragraph from splitting it', () => {
    expect(read('<p>one\n\n\ntwo</p>').text).toBe('one two');
  });

  it('leaves out scripts, styles, templates, forms, embedded content and hidden parts', () => {
    const { text } = read(`<body><p>Kept.</p><script>var x = 1;</script><style>p{}</style><noscript>Enable JS</noscript>
      <template><p>Template</p></template><svg><text>Drawing</text></svg><form><label>Email</label></form>
      <iframe src="/x">Frame</iframe><video>No video support</video><p hidden>Hidden</p><span aria-hidden="true">Icon</span></body>`);

    expect(text).toBe('Kept.');
  });

  it('reads main when there is one, and leaves out the navigation, banner, sidebar and footer', () => {
    const { text } = read(`<body><header>Banner</header><nav>Menu</nav><p>Outside main</p>
      <main><p>Main text.</p></main><aside>Sidebar</aside><footer>Footer</footer></body>`);

    expect(text).toBe('Main text.');
  });

  it('reads [role=main] when there is no main element', () => {
    expect(read('<body><p>Teaser</p><div role="main"><p>The content.</p></div></body>').text).toBe('The content.');
  });

  it('reads the articles when there is no main, keeping an article\'s own header and footer', () => {
    const { text } = read(`<body><header>Site banner</header><p>Chrome</p>
      <article><header><h2>First post</h2></header><p>Body one.</p><footer>By Ann</footer></article>
      <article><p>Body two.</p></article></body>`);

    expect(text).toBe('First post\n\nBody one.\n\nBy Ann\n\nBody two.');
  });

  it('reads the body when there is neither main nor article', () => {
    expect(read('<body><div>Plain <span>page</span>.</div></body>').text).toBe('Plain page.');
  });

  it('keeps the cells of a table row apart', () => {
    expect(read('<table><tr><th>Name</th><th>Price</th></tr><tr><td>Tea</td><td>3</td></tr></table>').text).toBe('Name Price\n\nTea 3');
  });

  it('takes the title from <title>, else the first h1, else leaves it empty', () => {
    expect(read('<html><head><title> The\n  Title </title></head><body><h1>Heading</h1></body></html>').title).toBe('The Title');
    expect(read('<body><header><h1>Heading &amp; more</h1></header><p>Text</p></body>').title).toBe('Heading & more');
    expect(read('<body><p>Text</p></body>').title).toBe('');
  });

  it('collects the http(s) links of the whole page, navigation included, resolved against <base href>', () => {
    const { links } = read(`<html><head><base href="/root/"></head><body><nav><a href="menu">Menu</a></nav>
      <a href="../up#part">Up</a><a href="https://other.test/x">Other</a><a href="mailto:a@b.test">Mail</a>
      <a href="javascript:alert(1)">JS</a><a href="tel:+1">Tel</a><a>No href</a><map><area href="/area"></map></body></html>`);

    expect(links.map(String)).toEqual(['http://site.test/root/menu', 'http://site.test/up', 'https://other.test/x', 'http://site.test/area']);
  });

  it('resolves links against the page itself without <base href>', () => {
    expect(read('<a href="next">Next</a>').links.map(String)).toEqual(['http://site.test/docs/next']);
  });

  it('decodes the charset the response declares, else the page\'s meta charset, else UTF-8', () => {
    const latin1 = Buffer.from('<p>Caf\u00e9 cr\u00e8me</p>', 'latin1');
    expect(readPageText(latin1, 'iso-8859-1', url).text).toBe('Café crème');
    const declared = Buffer.concat([Buffer.from('<head><meta charset="windows-1252"></head>'), latin1]);
    expect(readPageText(declared, undefined, url).text).toBe('Café crème');
    expect(readPageText(Buffer.from('<p>Caf\u00e9 \u2013 \u00fcber</p>'), undefined, url).text).toBe('Café – über');
  });
});
