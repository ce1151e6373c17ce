import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openAuditSink } from './log-backend';

test('past --audit-log-maxsize the log is rotated to timestamped backups, at most --audit-log-maxbackup kept', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kapi-audit-log-'));
  try {
    const file = path.join(dir, 'audit.log');
    const sink = openAuditSink(file, 1, 2);
    const line = `${'x'.repeat(1023)}\n`;
    // 3.5 MiB of lines: three rotations at 1 MiB, the oldest backup removed.
    for (let i = 0; i < 3584; i++) sink.write(line);
    sink.close();
    const names = readdirSync(dir).sort();
    expect(names).toHaveLength(3);
    expect(names).toContain('audit.log');
    const backups = names.filter((n) => n !== 'audit.log');
    for (const b of backups) {
      expect(b).toMatch(/^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
      expect(readFileSync(path.join(dir, b)).length).toBe(1024 * 1024);
    }
    expect(readFileSync(file).length).toBe(512 * 1024);
    // Writes after close are dropped, never thrown.
    sink.write(line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
