import pino from 'pino';

/**
 * The call every module logs with: an info line, or an error line when `err` is given. Code that
 * needs levels or fields takes a `LevelLogger` (see `leveled`), which is also a `Logger`.
 */
export type Logger = (message: string, err?: unknown) => void;

export type LogFields = Record<string, unknown>;

export type LoggingFormat = 'text' | 'json';

/** klog's shape: `V(n)` lines appear when the verbosity (`-v`) is at least n; errors always appear. */
export interface LevelLogger extends Logger {
  readonly verbosity: number;
  enabled(level: number): boolean;
  info(message: string, fields?: LogFields): void;
  /** An info line at verbosity `level` (klog.V(level).InfoS); nothing when `-v` is lower. */
  v(level: number, message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, err?: unknown, fields?: LogFields): void;
}

export interface LoggerOptions {
  /** klog's -v: 0 (default) to 10. */
  verbosity?: number;
  format?: LoggingFormat;
  /** Where lines go; stderr (synchronously, as klog writes) by default. */
  stream?: { write(line: string): unknown };
}

/** An error's text can embed the request that caused it: logs keep a bounded part of it. */
const MAX_DETAIL = 4000;

function errorText(err: unknown): string {
  const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}

const SEVERITY: Record<number, string> = { 30: 'I', 40: 'W', 50: 'E' };
const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** A value as klog's text format writes it: strings and structures quoted, numbers and booleans bare. */
function textValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
}

/**
 * klog's text header (`Lmmdd hh:mm:ss.uuuuuu pid] `): an unstructured message as Infof writes it,
 * a message with fields as InfoS/ErrorS write it (quoted message, then key="value" pairs).
 * See k8s.io/klog/v2 formatHeader and the KObj-free parts of serialize.KVListFormat.
 */
function textLine(record: Record<string, unknown>): string {
  const { level, ts, msg, v: _v, ...fields } = record;
  const at = new Date(Number(ts) * 1000);
  const header = `${SEVERITY[level as number] ?? 'I'}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}.${pad(at.getUTCMilliseconds(), 3)}000 ${String(process.pid).padStart(7)}] `;
  const pairs = Object.entries(fields).map(([k, val]) => `${k}=${textValue(val)}`);
  return pairs.length === 0 ? `${header}${String(msg)}\n` : `${header}${JSON.stringify(String(msg))} ${pairs.join(' ')}\n`;
}

/**
 * pino underneath: JSON lines as component-base's JSON format writes them (`ts` in seconds,
 * `msg`, `v` on info lines, `err` on errors), or klog's text format rendered from them.
 */
export function createLogger(options: LoggerOptions = {}): LevelLogger {
  const verbosity = options.verbosity ?? 0;
  const format = options.format ?? 'text';
  const out = options.stream ?? pino.destination({ dest: 2, sync: true });
  const destination = format === 'json' ? out : { write: (line: string) => out.write(textLine(JSON.parse(line) as Record<string, unknown>)) };
  const base = pino(
    {
      base: null,
      messageKey: 'msg',
      // component-base's JSON lines start with `ts` and carry no level. pino writes its (cached)
      // level chunk, then the timestamp chunk: with the level chunk empty, `ts` takes no comma.
      formatters: { level: (_label, number) => (format === 'json' ? {} : { level: number }) },
      timestamp: format === 'json' ? () => `"ts":${Date.now() / 1000}` : () => `,"ts":${Date.now() / 1000}`,
    },
    destination,
  );
  const enabled = (level: number): boolean => level <= verbosity;
  const v = (level: number, message: string, fields?: LogFields): void => {
    if (enabled(level)) base.info({ v: level, ...fields }, message);
  };
  const error = (message: string, err?: unknown, fields?: LogFields): void => {
    base.error({ ...(err === undefined ? {} : { err: errorText(err) }), ...fields }, message);
  };
  const log: Logger = (message, err) => (err === undefined ? v(0, message) : error(message, err));
  return Object.assign(log, {
    verbosity,
    enabled,
    info: (message: string, fields?: LogFields) => v(0, message, fields),
    v,
    warn: (message: string, fields?: LogFields) => base.warn({ v: 0, ...fields }, message),
    error,
  });
}

/** A plain `Logger` seen as a `LevelLogger` at verbosity 0 (tests and embedders pass plain functions). */
export function leveled(log: Logger): LevelLogger {
  if ('enabled' in log && typeof (log as LevelLogger).enabled === 'function') return log as LevelLogger;
  const withFields = (message: string, fields?: LogFields): string =>
    fields
      ? `${message} ${Object.entries(fields)
          .map(([k, val]) => `${k}=${textValue(val)}`)
          .join(' ')}`
      : message;
  const enabled = (level: number): boolean => level <= 0;
  return Object.assign((message: string, err?: unknown) => log(message, err), {
    verbosity: 0,
    enabled,
    info: (message: string, fields?: LogFields) => log(withFields(message, fields)),
    v: (level: number, message: string, fields?: LogFields) => {
      if (enabled(level)) log(withFields(message, fields));
    },
    warn: (message: string, fields?: LogFields) => log(withFields(message, fields)),
    error: (message: string, err?: unknown, fields?: LogFields) => log(withFields(message, fields), err ?? message),
  });
}
