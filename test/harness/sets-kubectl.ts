import { eventually } from './etcd-keys';
import { kubectl } from './process';

/** What the StatefulSet and DaemonSet tests share: kubectl against one server, and pods made Ready as a kubelet would report them. */
export function setsKubectl(url: () => string) {
  const k = (...args: string[]) => kubectl(url(), args);
  const json = async <T = Record<string, any>>(...args: string[]): Promise<T> => {
    const res = await k(...args, '-o', 'json');
    if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
    return JSON.parse(res.stdout) as T;
  };
  const podNames = async (selector: string): Promise<string[]> =>
    (await json<{ items: { metadata: { name: string } }[] }>('get', 'pods', '-l', selector)).items.map((p) => p.metadata.name).sort();
  /** Writes pods/status as a kubelet would for a started, ready pod. */
  const markReady = async (name: string): Promise<void> => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] };
    const res = await k('patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }));
    if (res.code !== 0) throw new Error(`marking ${name} ready: ${res.stderr}`);
  };
  const until = <T>(what: string, probe: () => Promise<T | undefined>) => eventually(what, probe, 20_000);
  return { k, json, podNames, markReady, until };
}
