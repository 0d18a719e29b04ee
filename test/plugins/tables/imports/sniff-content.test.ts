import { formatOfName, sniffContent } from '../../../../plugins/tables/imports/sniff-content';

const sniff = (bytes: Buffer | string) => {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  return sniffContent(buffer, buffer);
};

describe('sniffContent', () => {
  it.each([
    ['CSV text', 'a,b\n1,2\n', 'csv'],
    ['text with a byte order mark', '\uFEFFa;b\n', 'csv'],
    ['a JSON array', '  \n[{"a": 1}]', 'json'],
    ['a JSON object', '{"a": 1}', 'json-object'],
    ['XML', '<?xml version="1.0"?><a/>', 'xml'],
    ['a PDF', '%PDF-1.7\n...', 'pdf'],
    ['nothing but spaces', '   \n', 'empty'],
  ])('%s', (_, content, kind) => {
    expect(sniff(content)).toBe(kind);
  });

  it('tells a workbook from another zip by its xl/ entries', () => {
    const zip = (name: string) => Buffer.concat([Buffer.from('PK\u0003\u0004\u0014\u0000'), Buffer.from(name), Buffer.alloc(20)]);
    expect(sniff(zip('xl/workbook.xml'))).toBe('xlsx');
    expect(sniff(zip('word/document.xml'))).toBe('zip');
  });

  it.each([
    ['ID3 (MP3)', Buffer.from('ID3\u0003\u0000\u0000\u0000\u0000\u0000\u0000')],
    ['an MPEG frame', Buffer.from([0xff, 0xfb, 0x90, 0x44, 0x00])],
    ['WAVE', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt ')])],
    ['Ogg', Buffer.from('OggS\u0000\u0002')],
    ['FLAC', Buffer.from('fLaC\u0000\u0000')],
    ['M4A', Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypM4A \u0000\u0000')])],
  ])('recognises audio: %s', (_, bytes) => {
    expect(sniff(bytes)).toBe('audio');
  });

  it('refuses binary data and UTF-16', () => {
    expect(sniff(Buffer.from([0x01, 0x02, 0x00, 0x41, 0x42]))).toBe('binary');
    expect(sniff(Buffer.from([0xc3, 0x28, 0x41]))).toBe('binary');
    expect(sniff(Buffer.from('\uFEFFa,b', 'utf16le'))).toBe('utf16');
  });

  it('does not mistake a multi-byte character cut at the end of the sample for binary', () => {
    const text = Buffer.from('name\nJosé');
    expect(sniff(text.subarray(0, text.length - 1))).toBe('csv');
  });
});

describe('formatOfName', () => {
  it.each([
    ['people.CSV', 'csv'],
    ['people.tsv', 'csv'],
    ['book.xlsx', 'xlsx'],
    ['data.json', 'json'],
    ['feed.xml', 'xml'],
    ['paper.pdf', 'pdf'],
    ['voice.m4a', 'audio'],
    ['README', undefined],
    ['archive.tar.gz', undefined],
  ])('%s -> %s', (name, format) => {
    expect(formatOfName(name)).toBe(format);
  });
});
