import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/** Changes come in bursts (a write, then a rename, then the key): one check after the burst. */
const SETTLE_MS = 50;

/**
 * Calls `check` soon after any of `files` changes, and every `intervalMs` in any case, as
 * dynamiccertificates' controllers pair an fsnotify watch with a periodic resync. Their
 * directories are watched, not the files: a file replaced by a rename (cert-manager, kubelet's
 * atomic writer) keeps being seen. A directory that cannot be watched is left to the periodic check.
 */
export function watchFiles(files: string[], check: () => void, intervalMs: number): () => void {
  const names = new Map<string, Set<string>>();
  for (const file of files) {
    const dir = path.dirname(path.resolve(file));
    names.set(dir, (names.get(dir) ?? new Set()).add(path.basename(file)));
  }
  let pending: NodeJS.Timeout | null = null;
  const soon = (): void => {
    pending ??= setTimeout(() => {
      pending = null;
      check();
    }, SETTLE_MS);
  };
  const watchers: FSWatcher[] = [];
  for (const [dir, basenames] of names) {
    try {
      // kubelet's atomic writer swaps a `..data` symlink: any event in the directory may be ours.
      const watcher = watch(dir, { persistent: false }, (_event, name) => (name === null || basenames.has(name) || name.startsWith('..') ? soon() : undefined));
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
    } catch {
      // the periodic check still runs
    }
  }
  const timer = setInterval(check, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (pending) clearTimeout(pending);
    for (const watcher of watchers) watcher.close();
  };
}
