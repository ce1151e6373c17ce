// client-node's Log and Exec against kapi (an ES module, hence its own process); prints one JSON report.
import { Writable } from 'node:stream';
import { Exec, Log } from '@kubernetes/client-node';
import { kubeConfigFor } from './kube-config.mjs';

const kc = kubeConfigFor(process.argv[2]);

function collector() {
  const chunks = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

const report = {};
const logs = collector();
// Log pipes the answer into the stream, which finishes with it.
await new Promise((resolve, reject) => {
  logs.stream.on('finish', resolve);
  new Log(kc).log('default', 'web', 'app', logs.stream, { tailLines: 2 }).catch(reject);
});
report.log = logs.text();

const stdout = collector();
report.status = await new Promise((resolve, reject) => {
  new Exec(kc).exec('default', 'web', 'app', ['echo', 'from', 'client-node'], stdout.stream, null, null, false, resolve).catch(reject);
});
report.stdout = stdout.text();
process.stdout.write(JSON.stringify(report));
