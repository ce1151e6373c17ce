import type { RequestListener } from 'node:http';
import { requestLabels } from '../http/filters/request-metrics';
import { parseRequestInfo } from '../http/request-info';
import type { LevelLogger } from './logger';

/** kube-apiserver's httplog writes its "HTTP" line at klog verbosity 3 (httplog.go, withLoggingLevel). */
export const ACCESS_LOG_VERBOSITY = 3;

/** A duration as Go's time.Duration prints it (httplog logs `latency` that way). */
export function goDuration(seconds: number): string {
  if (seconds >= 1) return `${Number(seconds.toFixed(9))}s`;
  if (seconds >= 1e-3) return `${Number((seconds * 1e3).toFixed(6))}ms`;
  if (seconds >= 1e-6) return `${Number((seconds * 1e6).toFixed(3))}µs`;
  return `${Math.round(seconds * 1e9)}ns`;
}

/** Go's net.JoinHostPort, as http.Request.RemoteAddr reads. */
const hostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/**
 * One line per request when it ends (a watch when it closes), with httplog's keys: verb (as the
 * request metrics name it), URI, latency, userAgent, audit-ID (the Audit-Id response header), srcIP,
 * resp. Below verbosity 3 the listener is returned unchanged, so the line costs nothing.
 */
export function withAccessLog(listener: RequestListener, log: LevelLogger): RequestListener {
  if (!log.enabled(ACCESS_LOG_VERBOSITY)) return listener;
  return (req, res) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const url = new URL(req.url ?? '/', 'http://kapi');
      const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
      log.v(ACCESS_LOG_VERBOSITY, 'HTTP', {
        verb: requestLabels(req, info, url.searchParams).verb,
        URI: req.url ?? '/',
        latency: goDuration(Number(process.hrtime.bigint() - started) / 1e9),
        userAgent: req.headers['user-agent'] ?? '',
        'audit-ID': String(res.getHeader('Audit-Id') ?? ''),
        srcIP: hostPort(req.socket.remoteAddress ?? '', req.socket.remotePort ?? 0),
        resp: res.statusCode,
      });
    });
    listener(req, res);
  };
}
