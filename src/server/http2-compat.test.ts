import { once } from 'node:events';
import { connect, createServer, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Http2Request, Http2Response } from './http2-compat';

test('a request shows no pseudo-headers, Host from :authority and every value of a repeated header; a response drops connection-specific fields and says Connection: close with a GOAWAY', async () => {
  let seen: { headers: IncomingHttpHeaders; distinct: Record<string, string[]>; raw: string[]; method: string; url: string } | undefined;
  const server = createServer({ Http2ServerRequest: Http2Request, Http2ServerResponse: Http2Response }, (req, res) => {
    seen = { headers: req.headers, distinct: req.headersDistinct, raw: req.rawHeaders, method: req.method, url: req.url };
    res.setHeader('Transfer-Encoding', 'chunked');
    res.setHeader('Connection', 'close');
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Keep-Alive': 'timeout=5', Upgrade: 'h2c' });
    res.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const session = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    const goaway = once(session, 'goaway');
    const stream = session.request({ ':path': '/api?x=1', 'x-many': ['a', 'b'] });
    stream.end();
    const [headers] = (await once(stream, 'response')) as [IncomingHttpHeaders];
    stream.resume();
    await once(stream, 'end');
    expect(seen!.method).toBe('GET');
    expect(seen!.url).toBe('/api?x=1');
    expect(Object.keys(seen!.headers).filter((name) => name.startsWith(':'))).toEqual([]);
    expect(seen!.headers.host).toBe(`127.0.0.1:${(server.address() as AddressInfo).port}`);
    expect(seen!.distinct['x-many']).toEqual(['a', 'b']);
    expect(seen!.raw.filter((_, i) => i % 2 === 0 && seen!.raw[i].startsWith(':'))).toEqual([]);
    expect(headers[':status']).toBe(200);
    expect(headers['content-type']).toBe('text/plain');
    for (const name of ['transfer-encoding', 'connection', 'keep-alive', 'upgrade']) expect(headers[name]).toBeUndefined();
    expect((await goaway)[0]).toBe(0);
  } finally {
    session.destroy();
    server.close();
  }
});
