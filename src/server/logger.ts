/** One-line logs on stderr, klog-like: level letter, time, message, error. */
export type Logger = (message: string, err?: unknown) => void;

/** An error's text can embed the request that caused it: logs keep a bounded part of it. */
const MAX_DETAIL = 4000;

export function createLogger(stream: NodeJS.WritableStream = process.stderr): Logger {
  return (message, err) => {
    const text = err === undefined ? '' : err instanceof Error ? (err.stack ?? err.message) : String(err);
    const detail = err === undefined ? '' : `: ${text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text}`;
    stream.write(`${err === undefined ? 'I' : 'E'}${new Date().toISOString()} ${message}${detail}\n`);
  };
}
