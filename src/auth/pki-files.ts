import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Writes a file whole or not at all, creating its directory: the content goes to a temporary file
 * of an unguessable name, created exclusively with the final mode (so no one can plant it, or
 * read a key through it), then renamed over the file.
 */
export function writeFileAtomically(file: string, content: string, mode: number): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(12).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, content, { mode, flag: 'wx' });
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
