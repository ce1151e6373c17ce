// `npm run test:sample`: packs kapi (npm pack; build first), then a fresh project in a temporary
// directory, outside this repository, installs the tarball and jest from the registry and runs its
// four suites with four jest workers against startKapi(). Fails on any error or on anything left running.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const work = mkdtempSync(path.join(tmpdir(), 'kapi-sample-'));
const project = path.join(work, 'project');
const shared = path.join(work, 'testing-host');
const started = Date.now();
const step = (what) => console.log(`[sample ${((Date.now() - started) / 1000).toFixed(1)}s] ${what}`);
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', ...opts });

try {
  if (!existsSync(path.join(root, 'dist/testing/index.js'))) throw new Error('dist/ is missing: npm run build first');
  step('npm pack');
  // The tarball is of what is built; prepack (the build) already ran through `make test`.
  const [{ filename }] = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' }));
  const tarball = path.join(work, filename);
  mkdirSync(project);
  for (const entry of ['package.json', 'test', 'crds']) cpSync(path.join(here, entry), path.join(project, entry), { recursive: true });

  step(`npm install ${filename} jest`);
  const jestVersion = JSON.parse(execFileSync('node', ['-p', "JSON.stringify(require('jest/package.json').version)"], { cwd: root, encoding: 'utf8' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-dev', tarball, `jest@${jestVersion}`], { cwd: project });

  step('the kapi bin');
  const usage = execFileSync(path.join(project, 'node_modules/.bin/kapi'), ['--help'], { encoding: 'utf8' });
  if (!usage.startsWith('Usage: kapi')) throw new Error(`kapi --help printed: ${usage}`);

  step('jest --maxWorkers=4');
  run('npm', ['test', '--', '--ci'], { cwd: project, env: { ...process.env, KAPI_TESTING_DIR: shared, KAPI_TESTING_ETCD_LINGER_MS: '1000' } });

  step('the testing host retires (etcd stopped, its data removed) once the workers are gone');
  const deadline = Date.now() + 20_000;
  const leftovers = () => readdirSync(shared).filter((f) => f !== 'host.log');
  while (leftovers().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  if (leftovers().length > 0) throw new Error(`left behind in ${shared}: ${leftovers().join(', ')}`);
  step('ok');
} finally {
  if (process.env.KEEP_SAMPLE) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
