import { evaluate } from './test-eval';

describe('url library', () => {
  test.each([
    ["isURL('https://user:pass@example.com:80/path?query=val#fragment') && isURL('/absolute-path')", true],
    ["isURL('https://a:b:c/') || isURL('../relative-path') || isURL('example.com') || isURL('')", false],
    ["url('/path').getScheme()", ''],
    ["url('HTTPS://example.com/').getScheme()", 'https'],
    ["url('https://example.com:80/').getHost()", 'example.com:80'],
    ["url('https://[::1]:80/').getHost()", '[::1]:80'],
    ["url('/path').getHost()", ''],
    ["url('https://example.com:80/').getHostname()", 'example.com'],
    ["url('https://[::1]:80/').getHostname()", '::1'],
    ["url('https://example.com:80/').getPort()", '80'],
    ["url('https://example.com/').getPort()", ''],
    ["url('https://example.com/path').getEscapedPath()", '/path'],
    ["url('https://example.com/path with spaces/').getEscapedPath()", '/path%20with%20spaces/'],
    ["url('https://example.com/a%2Fb').getEscapedPath()", '/a%2Fb'],
    ["url('https://example.com').getEscapedPath()", ''],
    ["url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", { k1: ['a'], k2: ['b', 'c'] }],
    ["url('https://example.com/path?key with spaces=value with spaces').getQuery()", { 'key with spaces': ['value with spaces'] }],
    ["url('https://example.com/path?').getQuery()", {}],
    ["url('https://example.com/p#frag') == url('https://example.com/p#frag')", true],
    ["url('mailto:user@example.com').getScheme() + '|' + url('mailto:user@example.com').getHost()", 'mailto|'],
    ["url('https://example.com/%41').getEscapedPath()", '/%41'],
    ["url('https://example.com/p?a=1#frag').getQuery()", { a: ['1'] }],
    ["url('https://example.com/p?a=%zz&b=2').getQuery()", { b: ['2'] }],
    ["url('https://example.com/a') == url('https://example.com/b')", false],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  test.each([
    ["url('https://a:b:c/')", 'URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host'],
    ["url('../relative-path')", 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request'],
    ["url(':x')", 'URL parse error during conversion from string: parse ":x": missing protocol scheme'],
    ["url('https://exa mple.com/')", 'URL parse error during conversion from string: parse "https://exa mple.com/": invalid character " " in host name'],
    ["url('http://[::1/')", 'URL parse error during conversion from string: parse "http://[::1/": missing \']\' in host'],
    ["url('http://host:port/')", 'URL parse error during conversion from string: parse "http://host:port/": invalid port ":port" after host'],
    ["url('/a%zz')", 'URL parse error during conversion from string: parse "/a%zz": invalid URL escape "%zz"'],
  ])('%s is an error', (source, message) => {
    expect(evaluate(source)).toEqual({ error: message });
  });
});
