import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import type { SecureVersion } from 'node:tls';

export interface TlsOptions {
  /** The CA the server's certificate must chain to (PEM). */
  ca: string;
  /** A client certificate and its key (PEM). */
  cert?: string;
  key?: string;
  minVersion?: SecureVersion;
  maxVersion?: SecureVersion;
}

export interface TlsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

/** One HTTPS request that verifies the server against `tls.ca`, optionally with a client certificate. */
export function httpsRequest(
  url: string,
  tls: TlsOptions,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<TlsResponse> {
  return new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const req = request(
      url,
      {
        method: init.method ?? 'GET',
        headers: { Accept: 'application/json', ...(payload ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
        ...tls,
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: unknown = null;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command (kubectl with a kubeconfig of its own, python3), with a timeout. */
export function run(command: string, args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(command, args, { env: { ...process.env, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A P-256 key and a PEM certificate request for `subject` (`/CN=.../O=...`), made by openssl in `dir`. */
export async function opensslCertificateRequest(dir: string, name: string, subject: string): Promise<{ key: string; csr: string }> {
  const key = `${dir}/${name}.key`;
  const csr = `${dir}/${name}.csr`;
  const made = await run('openssl', [
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    csr,
    '-subj',
    subject,
  ]);
  if (made.code !== 0) throw new Error(`openssl req: ${made.stderr}`);
  return { key, csr: readFileSync(csr, 'utf8') };
}
