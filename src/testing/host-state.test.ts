import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isAlive } from '../server/embedded-etcd';
import { withLock } from './host-state';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'kapi-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('sections under the lock never overlap', async () => {
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 5 }, () =>
      withLock(dir, async () => {
        most = Math.max(most, ++inside);
        await new Promise((r) => setTimeout(r, 15));
        inside--;
      }),
    ),
  );
  expect(most).toBe(1);
});

test('a lock left by a process that died is broken', async () => {
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(dead.stdout);
  expect(isAlive(pid)).toBe(false);
  mkdirSync(path.join(dir, 'lock'));
  writeFileSync(path.join(dir, 'lock', 'owner'), String(pid));
  const started = Date.now();
  expect(await withLock(dir, async () => 'entered')).toBe('entered');
  expect(Date.now() - started).toBeLessThan(1000);
});
