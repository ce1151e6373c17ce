import { StatusError } from '../api/errors';
import { parseAccept, parseMediaType } from './media-type';
import { negotiateInput, negotiateOutput, type OutputOptions } from './negotiate';

const resource: OutputOptions = { encodings: ['json', 'yaml', 'protobuf'], meta: true };
const pick = (accept: string | undefined, opts = resource) => negotiateOutput(accept, opts);

function statusOf(fn: () => unknown): StatusError['status'] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return (err as StatusError).status;
  }
  throw new Error('no error');
}

describe('media types and Accept headers', () => {
  test('parameters are parsed, types lower-cased, quotes dropped', () => {
    expect(parseMediaType('Application/JSON; charset="utf-8";as=Table')).toEqual({
      type: 'application/json',
      params: { charset: 'utf-8', as: 'Table' },
    });
  });

  test('clauses sort by q, then specificity, then as written; q=0 is dropped', () => {
    expect(parseAccept('*/*;q=0.5, application/*;q=0.5, application/yaml;q=0.9, application/json;q=0, text/plain').map((c) => [c.type, c.q])).toEqual([
      ['text/plain', 1],
      ['application/yaml', 0.9],
      ['application/*', 0.5],
      ['*/*', 0.5],
    ]);
  });

  test('no Accept header means */*', () => {
    expect(parseAccept(undefined)).toEqual([{ type: '*/*', params: {}, q: 1 }]);
  });
});

describe('negotiateOutput', () => {
  test('absent or wildcard Accept gets the first encoding, JSON', () => {
    expect(pick(undefined)).toEqual({ encoding: 'json', contentType: 'application/json', representation: { kind: 'object' } });
    expect(pick('*/*').encoding).toBe('json');
    expect(pick('application/*').encoding).toBe('json');
  });

  test('q-values decide between acceptable types', () => {
    expect(pick('application/json;q=0.5, application/yaml').contentType).toBe('application/yaml');
    expect(pick('application/vnd.kubernetes.protobuf, application/json;q=0.9').encoding).toBe('protobuf');
    expect(pick('text/html, application/json;q=0.1').encoding).toBe('json');
  });

  test('a Table in meta.k8s.io v1 or v1beta1, and in meta.cluster', () => {
    expect(pick('application/json;as=Table;g=meta.k8s.io;v=v1')).toEqual({
      encoding: 'json',
      contentType: 'application/json',
      representation: { kind: 'Table', group: 'meta.k8s.io', version: 'v1' },
    });
    expect(pick('application/json;as=Table;v=v1beta1;g=meta.k8s.io').representation).toEqual({ kind: 'Table', group: 'meta.k8s.io', version: 'v1beta1' });
    expect(pick('application/json;as=Table;g=meta.cluster;v=v1').representation).toEqual({ kind: 'Table', group: 'meta.cluster', version: 'v1' });
  });

  test('kubectl get: a Table first, plain JSON as the fallback', () => {
    const kubectl = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    expect(pick(kubectl).representation).toEqual({ kind: 'Table', group: 'meta.k8s.io', version: 'v1' });
    expect(pick(kubectl, { encodings: ['json'] }).representation).toEqual({ kind: 'object' });
  });

  test('PartialObjectMetadata and its list', () => {
    expect(pick('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1').representation).toEqual({
      kind: 'PartialObjectMetadataList',
      group: 'meta.k8s.io',
      version: 'v1',
    });
    expect(pick('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1').representation.kind).toBe('PartialObjectMetadata');
  });

  test('conversions an endpoint cannot serve fall through to the next clause', () => {
    expect(pick('application/json;as=Table;g=meta.k8s.io;v=v2, application/yaml').contentType).toBe('application/yaml');
    expect(pick('application/json;as=Table;g=apps;v=v1, application/yaml').contentType).toBe('application/yaml');
    expect(pick('application/json;as=Table, application/yaml').contentType).toBe('application/yaml');
    expect(pick('application/json;as=Pod;g=meta.k8s.io;v=v1, application/yaml').contentType).toBe('application/yaml');
    // A group and version without a kind name no conversion kube-apiserver serves.
    expect(pick('application/json;g=meta.k8s.io;v=v1, application/yaml').contentType).toBe('application/yaml');
    // Tables only on endpoints that build them.
    expect(pick('application/json;as=Table;g=meta.k8s.io;v=v1, application/yaml', { encodings: ['json', 'yaml'] }).contentType).toBe('application/yaml');
  });

  test('aggregated discovery on /api and /apis', () => {
    const discovery: OutputOptions = { encodings: ['json'], discovery: true };
    expect(pick('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json', discovery)).toEqual({
      encoding: 'json',
      contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      representation: { kind: 'APIGroupDiscoveryList', version: 'v2' },
    });
    expect(pick('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json', discovery).representation).toEqual({ kind: 'object' });
    expect(pick('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json', resource).representation).toEqual({ kind: 'object' });
  });

  test('406 when nothing acceptable is offered', () => {
    expect(statusOf(() => pick('text/html', { encodings: ['json', 'yaml'] }))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'only the following media types are accepted: application/json, application/yaml',
      reason: 'NotAcceptable',
      code: 406,
    });
    expect(statusOf(() => pick('application/json;q=0')).code).toBe(406);
  });
});

describe('negotiateInput', () => {
  const accepted = ['json', 'yaml', 'protobuf'] as const;

  test('Content-Type picks the decoder; none means JSON', () => {
    expect(negotiateInput(undefined, [...accepted])).toBe('json');
    expect(negotiateInput('application/json; charset=utf-8', [...accepted])).toBe('json');
    expect(negotiateInput('application/yaml', [...accepted])).toBe('yaml');
    expect(negotiateInput('application/vnd.kubernetes.protobuf', [...accepted])).toBe('protobuf');
  });

  test('application/vnd.cluster.protobuf is read as protobuf', () => {
    expect(negotiateInput('application/vnd.cluster.protobuf', [...accepted])).toBe('protobuf');
  });

  test('415 for an unknown or unaccepted type', () => {
    expect(statusOf(() => negotiateInput('text/plain', [...accepted]))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
    expect(statusOf(() => negotiateInput('application/vnd.kubernetes.protobuf', ['json'])).code).toBe(415);
  });
});
