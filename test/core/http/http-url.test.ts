import { isHttpUrl } from '../../../core';

describe('isHttpUrl', () => {
  it.each(['http://example.com', 'https://example.com/a?b=c#d', 'HTTPS://Example.com:8443/x', 'http://127.0.0.1:3000/hook'])('accepts %s', (url) => {
    expect(isHttpUrl(url)).toBe(true);
  });

  it.each([
    ['another scheme', 'ftp://example.com'],
    ['a scheme without //', 'http:example.com'],
    ['no host', 'http://'],
    ['a relative path', '/hooks/1'],
    ['text', 'example.com'],
    ['an invalid port', 'https://example.com:99999'],
    ['a number', 42],
    ['null', null],
  ])('refuses %s', (_, value) => {
    expect(isHttpUrl(value)).toBe(false);
  });
});
