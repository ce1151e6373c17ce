import { closeSync, existsSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

export interface AuditSink {
  write(line: string): void;
  close(): void;
}

/** `-`: one line per event on standard output. */
const stdoutSink: AuditSink = {
  write: (line) => void process.stdout.write(line),
  close: () => undefined,
};

/** lumberjack's backup name: name-2006-01-02T15-04-05.000.ext, in UTC. */
function backupName(file: string, now: Date): string {
  const ext = path.extname(file);
  const base = file.slice(0, file.length - ext.length);
  const stamp = now.toISOString().replace(/:/g, '-').replace('Z', '');
  return `${base}-${stamp}${ext}`;
}

/**
 * The log backend of --audit-log-path: appends lines to a file; past --audit-log-maxsize
 * megabytes the file is renamed to a timestamped backup (as kube-apiserver's lumberjack does)
 * and at most --audit-log-maxbackup backups are kept (0 keeps all).
 */
class FileSink implements AuditSink {
  private fd: number;
  private size: number;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly maxSizeBytes: number,
    private readonly maxBackups: number,
  ) {
    this.fd = openSync(file, 'a', 0o600);
    this.size = statSync(file).size;
  }

  write(line: string): void {
    // Requests still finishing while the server shuts down are not logged.
    if (this.closed) return;
    const bytes = Buffer.byteLength(line);
    if (this.maxSizeBytes > 0 && this.size > 0 && this.size + bytes > this.maxSizeBytes) this.rotate();
    writeSync(this.fd, line);
    this.size += bytes;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  private rotate(): void {
    closeSync(this.fd);
    let target = backupName(this.file, new Date());
    for (let i = 1; existsSync(target); i++) target = backupName(this.file, new Date(Date.now() + i));
    renameSync(this.file, target);
    this.fd = openSync(this.file, 'a', 0o600);
    this.size = 0;
    if (this.maxBackups <= 0) return;
    const dir = path.dirname(this.file);
    const ext = path.extname(this.file);
    const prefix = `${path.basename(this.file, ext)}-`;
    const backups = readdirSync(dir)
      .filter((f) => f.startsWith(prefix) && f.endsWith(ext) && f !== path.basename(this.file))
      .sort();
    for (const old of backups.slice(0, Math.max(0, backups.length - this.maxBackups))) unlinkSync(path.join(dir, old));
  }
}

export function openAuditSink(file: string, maxSizeMegabytes: number, maxBackups: number): AuditSink {
  if (file === '-') return stdoutSink;
  return new FileSink(file, maxSizeMegabytes * 1024 * 1024, maxBackups);
}
