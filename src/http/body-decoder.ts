import { Worker } from 'node:worker_threads';
import { DecodeError } from '../codec/decode-error';
import { decodeInThisThread, type BodyDecodeJob, type BodyDecodeResult } from './body-decoding';

/**
 * A body this small is decoded in place: its parse takes well under a millisecond, less than a
 * round trip to the worker (as decodeObject's walks in slices, from 64 KiB).
 */
const OFF_THREAD_BYTES = 64 * 1024;

type Waiting = Map<number, { resolve: (r: BodyDecodeResult) => void; reject: (err: Error) => void }>;

/**
 * Decodes large YAML and CBOR request bodies on a thread of their own (issue 25): js-yaml and
 * cbor-x parse a body in one piece, and a 3 MB YAML body held the event loop for hundreds of ms.
 * The main thread only receives the value (a structured clone, about as long as JSON.parse of the
 * same data). One worker serves the server, started on the first large body and again after it
 * dies; small bodies are decoded in place.
 */
export class BodyDecoder {
  private current: { worker: Worker; waiting: Waiting } | null = null;
  private nextId = 0;

  /** `workerScript`: the compiled body-decode-worker; null where there is none (sources run by ts-jest), and bodies are decoded in place. */
  constructor(private readonly workerScript: string | null) {}

  /** The body's value and duplicate-key errors; a DecodeError for a body that does not parse. */
  async decode(job: BodyDecodeJob): Promise<{ value: unknown; duplicates: string[] }> {
    const result = this.workerScript === null || job.body.length < OFF_THREAD_BYTES ? decodeInThisThread(job) : await this.post(job, this.workerScript);
    if ('decodeError' in result) throw new DecodeError(result.decodeError);
    if ('error' in result) throw new Error(`decoding a ${job.encoding} body: ${result.error}`);
    return { value: result.value, duplicates: result.duplicates };
  }

  async close(): Promise<void> {
    const current = this.current;
    this.current = null;
    if (current) await current.worker.terminate();
  }

  private post(job: BodyDecodeJob, script: string): Promise<BodyDecodeResult> {
    const { worker, waiting } = this.current ?? this.start(script);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...job });
      worker.ref();
    });
  }

  private start(script: string): { worker: Worker; waiting: Waiting } {
    const current = { worker: new Worker(script), waiting: new Map() as Waiting };
    const { worker, waiting } = current;
    worker.on('message', (message: BodyDecodeResult & { id: number }) => {
      waiting.get(message.id)?.resolve(message);
      waiting.delete(message.id);
      // An idle worker does not keep the process alive.
      if (waiting.size === 0) worker.unref();
    });
    const stopped = (err: Error): void => {
      if (this.current === current) this.current = null;
      for (const w of waiting.values()) w.reject(err);
      waiting.clear();
    };
    worker.on('error', stopped);
    worker.on('exit', (code) => stopped(new Error(`the body decoder's thread exited with code ${code}`)));
    this.current = current;
    return current;
  }
}
