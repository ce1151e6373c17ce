import { lookupMessage } from '../schema/proto-loader';
import type { ConnectSubresource } from '../registry/proxy/connect';

/**
 * The OpenAPI operations of connect subresources (exec, attach, portforward, proxy), as
 * kube-openapi's builder writes those of a rest.Connecter: one operation per HTTP method, action
 * `connect`, the options kind's fields as query parameters and a string response; proxy adds
 * `.../proxy/{path}`.
 */

/** The options kinds' field descriptions (their Go doc comments), which the .proto files do not carry. */
const DESCRIPTIONS: Record<string, string> = {
  'PodExecOptions.stdin': 'Redirect the standard input stream of the pod for this call. Defaults to false.',
  'PodExecOptions.stdout': 'Redirect the standard output stream of the pod for this call.',
  'PodExecOptions.stderr': 'Redirect the standard error stream of the pod for this call.',
  'PodExecOptions.tty': 'TTY if true indicates that a tty will be allocated for the exec call. Defaults to false.',
  'PodExecOptions.container': 'Container in which to execute the command. Defaults to only container if there is only one container in the pod.',
  'PodExecOptions.command': 'Command is the remote command to execute. argv array. Not executed within a shell.',
  'PodAttachOptions.stdin': 'Stdin if true, redirects the standard input stream of the pod for this call. Defaults to false.',
  'PodAttachOptions.stdout': 'Stdout if true indicates that stdout is to be redirected for the attach call. Defaults to true.',
  'PodAttachOptions.stderr': 'Stderr if true indicates that stderr is to be redirected for the attach call. Defaults to true.',
  'PodAttachOptions.tty':
    'TTY if true indicates that a tty will be allocated for the attach call. This is passed through the container runtime so the tty is allocated on the worker node by the container runtime. Defaults to false.',
  'PodAttachOptions.container': 'The container in which to execute the command. Defaults to only container if there is only one container in the pod.',
  'PodPortForwardOptions.ports': 'List of ports to forward Required when using WebSockets',
  'PodProxyOptions.path': 'Path is the URL path to use for the current proxy request to pod.',
  'NodeProxyOptions.path': 'Path is the URL path to use for the current proxy request to node.',
  'ServiceProxyOptions.path':
    'Path is the part of URLs that include service endpoints, suffixes, and parameters to use for the current proxy request to service. For example, the whole request URL is http://localhost/api/v1/namespaces/kube-system/services/elasticsearch-logging/_search?q=user:kimchy. Path is _search?q=user:kimchy.',
};

/** OpenAPI types of the options' proto fields; a repeated field is one query parameter given again. */
const PARAM_TYPES: Record<string, string> = { bool: 'boolean', string: 'string', int32: 'integer', int64: 'integer' };

export interface ConnectPath {
  /** The path after the object's: `/{sub}` or `/{sub}/{path}`. */
  suffix: string;
  /** The path's parameters besides namespace and name, in name order as kube lists them. */
  params: Record<string, unknown>[];
  /** Operations by lower-case HTTP method. */
  operations: Record<string, Record<string, unknown>>;
}

/** The options kind's fields as query parameters (the parameter codec decodes them from the query). */
function optionParams(sub: ConnectSubresource): Record<string, unknown>[] {
  const type = lookupMessage(sub.kind);
  if (!type) return [];
  return type.fieldsArray.map((field) => ({
    name: field.name,
    in: 'query',
    description: DESCRIPTIONS[`${sub.kind.kind}.${field.name}`] ?? '',
    schema: { type: PARAM_TYPES[field.type] ?? 'string', uniqueItems: true },
  }));
}

/**
 * A connect subresource's paths: its operations, named `connect<GV><Method><Namespaced><Kind><Sub>[WithPath]`
 * (kube-openapi's operation IDs), `gv` already spelled as the other operations spell it (CoreV1).
 */
export function connectPaths(sub: ConnectSubresource, owner: { kind: string; namespaced: boolean }, gv: string, tag: string): ConnectPath[] {
  const capital = (s: string) => s[0].toUpperCase() + s.slice(1).toLowerCase();
  const subName = sub.name[0].toUpperCase() + sub.name.slice(1);
  const query = optionParams(sub);
  const variants = [{ suffix: `/${sub.name}`, withPath: false }, ...(sub.takesPath ? [{ suffix: `/${sub.name}/{path}`, withPath: true }] : [])];
  return variants.map(({ suffix, withPath }) => {
    const pathParam = { name: 'path', in: 'path', description: 'path to the resource', required: true, schema: { type: 'string', uniqueItems: true } };
    const operations = Object.fromEntries(
      sub.methods.map((method) => [
        method.toLowerCase(),
        {
          tags: [tag],
          description: `connect ${method} requests to ${sub.name} of ${owner.kind}`,
          operationId: `connect${gv}${capital(method)}${owner.namespaced ? 'Namespaced' : ''}${owner.kind}${subName}${withPath ? 'WithPath' : ''}`,
          responses: { '200': { description: 'OK', content: { '*/*': { schema: { type: 'string' } } } }, '401': { description: 'Unauthorized' } },
          'x-kubernetes-action': 'connect',
          'x-kubernetes-group-version-kind': { group: sub.kind.group, version: sub.kind.version, kind: sub.kind.kind },
        },
      ]),
    );
    return { suffix, params: withPath ? [pathParam, ...query] : query, operations };
  });
}
