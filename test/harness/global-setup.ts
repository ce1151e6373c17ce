import { startTestEtcd, type TestEtcd } from './etcd';

declare global {
  // A global the test files read: `var` is how TypeScript declares one.
  var kapiTestEtcd: TestEtcd | undefined;
}

/** One etcd for the whole run; each test file works under its own key prefix. */
export default async function globalSetup(): Promise<void> {
  const etcd = await startTestEtcd();
  globalThis.kapiTestEtcd = etcd;
  process.env.KAPI_TEST_ETCD = etcd.endpoint;
}
