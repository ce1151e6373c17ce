import { parentPort } from 'node:worker_threads';
import { decodeInThisThread, type BodyDecodeJob } from './body-decoding';

/**
 * The body decoder's thread: decodes each YAML or CBOR body it is sent and posts the value back,
 * which the main thread receives as a structured clone (the same plain data, NaN, -0 and own
 * "__proto__" keys included).
 */
parentPort!.on('message', (job: BodyDecodeJob & { id: number }) => {
  parentPort!.postMessage({ id: job.id, ...decodeInThisThread(job) });
});
