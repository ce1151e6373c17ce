import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeFileAtomically } from './pki-files';

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'pki-files-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a key is written with its mode, through no temporary file another local user could have planted', () => {
  const file = path.join(dir, 'ca.key');
  const planted = path.join(dir, 'stolen');
  writeFileSync(planted, '');
  // The name a predictable writer would use, pointing where the attacker reads.
  symlinkSync(planted, `${file}.${process.pid}.tmp`);
  writeFileAtomically(file, 'secret', 0o600);
  expect(readFileSync(file, 'utf8')).toBe('secret');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readFileSync(planted, 'utf8')).toBe('');
  expect(readdirSync(dir).sort()).toEqual(['ca.key', `ca.key.${process.pid}.tmp`, 'stolen']);
});
