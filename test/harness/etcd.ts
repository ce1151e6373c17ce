import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { scratchDir } from '../../src/testing/scratch-dir';
import path from 'node:path';
import { EmbeddedEtcd } from '../../src/server/embedded-etcd';

/** A real etcd for tests: a container where a Docker engine answers, else a child process. */
export interface TestEtcd {
  endpoint: string;
  stop(): Promise<void>;
}

function dockerEngineAvailable(): boolean {
  const probe = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
  return !probe.error && probe.status === 0;
}

async function startContainer(): Promise<TestEtcd> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(process.env.KAPI_TEST_ETCD_IMAGE ?? 'quay.io/coreos/etcd:v3.5.17')
    .withCommand([
      'etcd',
      '--listen-client-urls=http://0.0.0.0:2379',
      '--advertise-client-urls=http://127.0.0.1:2379',
      '--experimental-watch-progress-notify-interval=5s',
    ])
    .withExposedPorts(2379)
    .withWaitStrategy(Wait.forHttp('/health', 2379))
    .start();
  return {
    endpoint: `http://${container.getHost()}:${container.getMappedPort(2379)}`,
    stop: async () => void (await container.stop()),
  };
}

async function startProcess(): Promise<TestEtcd> {
  const dir = mkdtempSync(path.join(scratchDir(), 'kapi-etcd-'));
  const etcd = await EmbeddedEtcd.start({ dataDir: dir, shortTicks: true });
  return {
    endpoint: etcd.endpoint,
    stop: async () => {
      await etcd.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startTestEtcd(): Promise<TestEtcd> {
  return dockerEngineAvailable() && process.env.KAPI_TEST_ETCD_MODE !== 'process' ? startContainer() : startProcess();
}
