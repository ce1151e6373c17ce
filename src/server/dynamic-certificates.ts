import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { PemPair } from '../auth/certificates';
import { poolOf, type CertificatePool } from '../auth/client-chain';
import { watchFiles } from './file-watch';
import type { Logger } from './logger';

/** dynamiccertificates' FileRefreshDuration: a change the watch missed is seen within a minute. */
export const CERTIFICATE_RELOAD_INTERVAL_MS = 60_000;

/** The files given by flags; a source without files (generated material) never changes. */
export interface CertificateFiles {
  /** --tls-cert-file and --tls-private-key-file. */
  serving: { cert: string; key: string } | null;
  /** --client-ca-file. */
  clientCa: string;
  /** --requestheader-client-ca-file. */
  requestHeaderCa: string;
}

/** What the secure port serves with and verifies client certificates against, at one moment. */
export interface CertificateContent {
  serving: PemPair;
  clientCa: string;
  requestHeaderCa: string;
}

/** One reloadable piece: its name in logs (kube's `purpose::file`), its files, and how their content is checked. */
interface Source {
  name: string;
  files: string[];
  /** Throws when the files do not hold a usable value (half-written, mismatched, empty). */
  load(): Partial<CertificateContent>;
}

function caSource(purpose: string, file: string, key: 'clientCa' | 'requestHeaderCa'): Source {
  return {
    name: `${purpose}::${file}`,
    files: [file],
    load: () => {
      const bundle = readFileSync(file, 'utf8');
      if (poolOf(bundle).length === 0) throw new Error(`missing content for CA bundle "${purpose}::${file}"`);
      return { [key]: bundle };
    },
  };
}

function servingSource(cert: string, key: string): Source {
  return {
    name: `serving-cert::${cert}::${key}`,
    files: [cert, key],
    load: () => {
      const serving = { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
      if (poolOf(serving.cert).length === 0) throw new Error(`missing content for serving cert "serving-cert::${cert}::${key}"`);
      // tls.X509KeyPair's check: OpenSSL refuses a key that does not match the certificate.
      createSecureContext(serving);
      return { serving };
    },
  };
}

/**
 * The serving certificate and the client CAs of the secure port, re-read when their files change,
 * as kube's DynamicServingCertificateController with DynamicCertKeyPairContent and
 * DynamicFileCAContent: content that does not load (a half-written file, a key that does not
 * match) keeps the last good one and is logged; new content reaches new connections (the
 * listener's secure context) and the x509 and requestheader authenticators (their pools);
 * connections already open keep theirs.
 */
export class DynamicCertificates {
  private content: CertificateContent;
  private clientPool: CertificatePool;
  private requestHeaderPool: CertificatePool;
  private readonly sources: Source[];
  private readonly listeners: ((content: CertificateContent) => void)[] = [];
  private stopWatching: (() => void) | null = null;

  constructor(
    initial: CertificateContent,
    files: CertificateFiles,
    private readonly log: Logger,
  ) {
    this.content = initial;
    this.clientPool = poolOf(initial.clientCa);
    this.requestHeaderPool = poolOf(initial.requestHeaderCa);
    this.sources = [
      ...(files.serving ? [servingSource(files.serving.cert, files.serving.key)] : []),
      ...(files.clientCa ? [caSource('client-ca-bundle', files.clientCa, 'clientCa')] : []),
      ...(files.requestHeaderCa ? [caSource('request-header', files.requestHeaderCa, 'requestHeaderCa')] : []),
    ];
  }

  current(): CertificateContent {
    return this.content;
  }

  /** The roots of --client-ca-file now (the x509 authenticator's). */
  clientCaPool(): CertificatePool {
    return this.clientPool;
  }

  /** The roots of --requestheader-client-ca-file now (the requestheader authenticator's). */
  requestHeaderCaPool(): CertificatePool {
    return this.requestHeaderPool;
  }

  /** Called with the new content after each change. */
  onChange(listener: (content: CertificateContent) => void): void {
    this.listeners.push(listener);
  }

  /** Watches the files (a no-op when none were given). */
  start(intervalMs = CERTIFICATE_RELOAD_INTERVAL_MS): void {
    if (this.sources.length === 0 || this.stopWatching) return;
    this.stopWatching = watchFiles(
      this.sources.flatMap((s) => s.files),
      () => this.check(),
      intervalMs,
    );
  }

  stop(): void {
    this.stopWatching?.();
    this.stopWatching = null;
  }

  /** Re-reads every source; applies and announces what changed. */
  check(): void {
    let next = this.content;
    for (const source of this.sources) {
      let loaded: Partial<CertificateContent>;
      try {
        loaded = source.load();
      } catch (err) {
        this.log(`${source.name} failed with: ${(err as Error).message}; keeping the content loaded before`);
        continue;
      }
      const changed = Object.entries(loaded).some(([key, value]) => JSON.stringify(value) !== JSON.stringify(next[key as keyof CertificateContent]));
      if (!changed) continue;
      next = { ...next, ...loaded };
      this.log(`loaded new content from ${source.name}`);
    }
    if (next === this.content) return;
    this.content = next;
    this.clientPool = poolOf(next.clientCa);
    this.requestHeaderPool = poolOf(next.requestHeaderCa);
    for (const listener of this.listeners) listener(next);
  }
}
