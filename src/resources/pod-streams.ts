import { badRequest, invalid } from '../api/errors';
import { field, goQuote, type FieldErrorList } from '../api/field-errors';
import { boolOption } from '../http/request-info';
import type { ConnectRequest, ConnectSubresource, ProxyTarget } from '../registry/proxy/connect';
import { kubeletTls } from '../registry/proxy/kubelet';
import { getPod, kubeletUrl, podContainer, podKubelet, podNodeName } from './pod-connect';

/** pods/log, exec, attach and portforward: served by the kubelet of the pod's node. */

const core = (kind: string) => ({ group: '', version: 'v1', kind });

/** runtime.Convert_Slice_string_To_bool, as query parameters decode into options. */
const flag = (query: URLSearchParams, name: string): boolean => boolOption(query.get(name));

/** An int64 query parameter; a malformed one is the parameter codec's 400. */
function int64(query: URLSearchParams, name: string): number | null {
  const value = query.get(name);
  if (value === null) return null;
  if (!/^[+-]?\d+$/.test(value)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  return Number(value);
}

/** metav1.Time from a query parameter: RFC 3339. */
function rfc3339(query: URLSearchParams, name: string): Date | null {
  const value = query.get(name);
  if (value === null) return null;
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime()))
    throw badRequest(`parsing time ${goQuote(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${goQuote(value)} as "2006"`);
  return at;
}

/** time.Format(time.RFC3339) of a UTC time: seconds, no fraction. */
const formatRfc3339 = (at: Date): string => `${at.toISOString().slice(0, 19)}Z`;

interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds: number | null;
  sinceTime: Date | null;
  tailLines: number | null;
  limitBytes: number | null;
  insecureSkipTLSVerifyBackend: boolean;
}

function podLogOptions(query: URLSearchParams): PodLogOptions {
  return {
    container: query.get('container') ?? '',
    follow: flag(query, 'follow'),
    previous: flag(query, 'previous'),
    timestamps: flag(query, 'timestamps'),
    sinceSeconds: int64(query, 'sinceSeconds'),
    sinceTime: rfc3339(query, 'sinceTime'),
    tailLines: int64(query, 'tailLines'),
    limitBytes: int64(query, 'limitBytes'),
    insecureSkipTLSVerifyBackend: flag(query, 'insecureSkipTLSVerifyBackend'),
  };
}

/** ValidatePodLogOptions. */
export function validatePodLogOptions(opts: PodLogOptions): FieldErrorList {
  const errs: FieldErrorList = [];
  if (opts.tailLines !== null && opts.tailLines < 0) errs.push(field.invalid('tailLines', opts.tailLines, 'must be greater than or equal to 0'));
  if (opts.limitBytes !== null && opts.limitBytes < 1) errs.push(field.invalid('limitBytes', opts.limitBytes, 'must be greater than 0'));
  if (opts.sinceSeconds !== null && opts.sinceTime !== null) errs.push(field.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (opts.sinceSeconds !== null && opts.sinceSeconds < 1) errs.push(field.invalid('sinceSeconds', opts.sinceSeconds, 'must be greater than 0'));
  return errs;
}

/**
 * pods/log (LogREST.Get + LogLocation): options validated (422 PodLogOptions), the container
 * checked, then /containerLogs/{namespace}/{pod}/{container} on the kubelet with the options the
 * kubelet takes; insecureSkipTLSVerifyBackend skips verifying the kubelet's certificate.
 */
export const podLog: ConnectSubresource = {
  name: 'log',
  kind: core('Pod'),
  verbs: ['get'],
  methods: ['GET'],
  takesPath: false,
  stream: true,
  async target(request) {
    const opts = podLogOptions(request.query);
    const errs = validatePodLogOptions(opts);
    if (errs.length > 0) throw invalid({ group: '', kind: 'PodLogOptions' }, request.name, errs);
    const pod = await getPod(request);
    const container = podContainer(pod, opts.container);
    // LogLocation has no location for a pod not on a node yet: 204 No Content.
    if (podNodeName(pod) === '') return null;
    const kubelet = await podKubelet(request, pod);
    const params = new URLSearchParams();
    if (opts.follow) params.set('follow', 'true');
    if (opts.previous) params.set('previous', 'true');
    if (opts.timestamps) params.set('timestamps', 'true');
    if (opts.sinceSeconds !== null) params.set('sinceSeconds', String(opts.sinceSeconds));
    if (opts.sinceTime !== null) params.set('sinceTime', formatRfc3339(opts.sinceTime));
    if (opts.tailLines !== null) params.set('tailLines', String(opts.tailLines));
    if (opts.limitBytes !== null) params.set('limitBytes', String(opts.limitBytes));
    params.sort();
    const path = `/containerLogs/${pod.metadata.namespace}/${pod.metadata.name}/${container}`;
    const tls = opts.insecureSkipTLSVerifyBackend ? kubeletTls(request.services.kubelet, true) : kubelet.tls;
    return { url: kubeletUrl(kubelet, path, params), tls, upgradeRequired: false };
  },
};

/** streamParams: the kubelet's names for the stream options (input, output, error, tty). */
function streamParams(query: URLSearchParams, withCommand: boolean): URLSearchParams {
  const params = new URLSearchParams();
  if (flag(query, 'stdin')) params.append('input', '1');
  if (flag(query, 'stdout')) params.append('output', '1');
  if (flag(query, 'stderr')) params.append('error', '1');
  if (flag(query, 'tty')) params.append('tty', '1');
  if (withCommand) for (const c of query.getAll('command')) params.append('command', c);
  params.sort();
  return params;
}

/** exec and attach (ExecLocation, AttachLocation): /{exec|attach}/{namespace}/{pod}/{container} on the kubelet, upgrade only. */
function containerStream(name: 'exec' | 'attach', kind: string): ConnectSubresource {
  return {
    name,
    kind: core(kind),
    verbs: ['create', 'get'],
    methods: ['GET', 'POST'],
    takesPath: false,
    stream: false,
    createsSession: true,
    async target(request: ConnectRequest): Promise<ProxyTarget> {
      const pod = await getPod(request);
      const container = podContainer(pod, request.query.get('container') ?? '');
      const kubelet = await podKubelet(request, pod);
      const path = `/${name}/${pod.metadata.namespace}/${pod.metadata.name}/${container}`;
      return { url: kubeletUrl(kubelet, path, streamParams(request.query, name === 'exec')), tls: kubelet.tls, upgradeRequired: true };
    },
  };
}

export const podExec = containerStream('exec', 'PodExecOptions');
export const podAttach = containerStream('attach', 'PodAttachOptions');

/** portforward (PortForwardLocation): /portForward/{namespace}/{pod} on the kubelet with the ports asked for, upgrade only. */
export const podPortForward: ConnectSubresource = {
  name: 'portforward',
  kind: core('PodPortForwardOptions'),
  verbs: ['create', 'get'],
  methods: ['GET', 'POST'],
  takesPath: false,
  stream: false,
  createsSession: true,
  async target(request) {
    const pod = await getPod(request);
    const kubelet = await podKubelet(request, pod);
    const params = new URLSearchParams();
    for (const port of request.query.getAll('ports').flatMap((p) => p.split(','))) if (port !== '') params.append('port', port);
    const path = `/portForward/${pod.metadata.namespace}/${pod.metadata.name}`;
    return { url: kubeletUrl(kubelet, path, params), tls: kubelet.tls, upgradeRequired: true };
  },
};
