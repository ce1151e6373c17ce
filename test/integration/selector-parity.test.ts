import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/**
 * Selector and list-option answers compared against kube-apiserver 1.36 (apimachinery v0.36.3): the texts of
 * parse and validation errors, which field labels each kind converts, and the order the checks run in.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/parity';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
  await api.post('/api/v1/namespaces', { metadata: { name: 'parity' } });
});

afterAll(async () => {
  await server.close();
});

async function message(path: string, code: number): Promise<string> {
  const res = await api.get(path);
  expect([path, res.status]).toEqual([path, code]);
  return res.body.message as string;
}

describe('label selectors', () => {
  test('an unknown operator lists the operators labels.Parse accepts', async () => {
    expect(await message(`${NS}/configmaps?labelSelector=a%20b`, 400)).toBe("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  });
});
