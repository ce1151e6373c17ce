import { Etcd3 } from 'etcd3';
import { testEtcdEndpoint } from './shared-etcd';

/** Straight to the test etcd, past kapi: what is really stored, and writes that kapi did not make. */
export class RawEtcd {
  readonly client = new Etcd3({ hosts: testEtcdEndpoint() });

  async keys(prefix: string): Promise<string[]> {
    return (await this.client.getAll().prefix(prefix).keys()).sort();
  }

  async get(key: string): Promise<Buffer | null> {
    return this.client.get(key).buffer();
  }

  async put(key: string, value: string | Buffer): Promise<void> {
    await this.client.put(key).value(value);
  }

  async delete(key: string): Promise<void> {
    await this.client.delete().key(key);
  }

  /** The keys of one namespace: its objects and the namespace itself. */
  async namespaceKeys(prefix: string, namespace: string): Promise<string[]> {
    return (await this.keys(`${prefix}/`)).filter((k) => k.includes(`/${namespace}/`) || k.endsWith(`/namespaces/${namespace}`));
  }

  close(): void {
    this.client.close();
  }
}

/** Polls until `check` returns a value (not undefined), or fails with the last state seen. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
