/** One-line logs on stderr, klog-like: level letter, time, message, error. */
export type Logger = (message: string, err?: unknown) => void;

export function createLogger(stream: NodeJS.WritableStream = process.stderr): Logger {
  return (message, err) => {
    const detail = err === undefined ? '' : `: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
    stream.write(`${err === undefined ? 'I' : 'E'}${new Date().toISOString()} ${message}${detail}\n`);
  };
}
