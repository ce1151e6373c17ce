import { statusOf } from '../../test/harness/status-of';
import { parseAccept, parseMediaType } from './media-type';
import { negotiateError, negotiateInput, negotiateOutput, negotiateStream, type OutputOptions } from './negotiate';

const resource: OutputOptions = { encodings: ['json', 'yaml', 'protobuf'], meta: true };
const pick = (accept: string | undefined, opts = resource) => negotiateOutput(accept, opts);

describe('media types and Accept headers', () => {
  test('a Content-Type: parameters parsed, type lower-cased, quotes dropped', () => {
    expect(parseMediaType('Application/JSON; charset="utf-8";as=Table')).toEqual({
      type: 'application/json',
      params: { charset: 'utf-8', as: 'Table' },
    });
  });

  test('Accept clauses sort as goautoneg sorts them (a concrete type passes a wildcard whatever its q); q=0 is kept', () => {
    expect(
      parseAccept('*/*;q=0.5, application/*;q=0.5, application/yaml;q=0.9, application/json;q=0, text/plain').map((c) => [`${c.type}/${c.subtype}`, c.q]),
    ).toEqual([
      ['text/plain', 1],
      ['application/yaml', Math.fround(0.9)],
      ['application/json', 0],
      ['application/*', 0.5],
      ['*/*', 0.5],
    ]);
  });

  test('clauses that are not type/subtype are dropped; case and unquoted values are kept', () => {
    expect(parseAccept('json, */*, a/b/c, Application/JSON;as="Table"')).toEqual([
      { type: 'Application', subtype: 'JSON', q: 1, params: { as: '"Table"' } },
      { type: '*', subtype: '*', q: 1, params: {} },
    ]);
  });
});

describe('negotiateOutput', () => {
  test('absent or wildcard Accept gets the first encoding, JSON', () => {
    expect(pick(undefined)).toEqual({ encoding: 'json', contentType: 'application/json', representation: { kind: 'object' }, pretty: false });
    expect(pick('*/*').encoding).toBe('json');
    expect(pick('application/*').encoding).toBe('json');
  });

  test('q-values decide between acceptable types', () => {
    expect(pick('application/json;q=0.5, application/yaml').contentType).toBe('application/yaml');
    expect(pick('application/vnd.kubernetes.protobuf, application/json;q=0.9').encoding).toBe('protobuf');
    expect(pick('text/html, application/json;q=0.1').encoding).toBe('json');
    // As in kube-apiserver, q=0 does not refuse a type: it is only tried last.
    expect(pick('text/html, application/json;q=0').encoding).toBe('json');
  });

  test('Protobuf by either name; the alias is answered with the alias', () => {
    expect(pick('application/vnd.kubernetes.protobuf').contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(pick('application/vnd.cluster.protobuf').contentType).toBe('application/vnd.cluster.protobuf');
  });

  test('a kind without a protobuf message: 406 for Protobuf alone, JSON when it is appended', () => {
    const custom: OutputOptions = { ...resource, objectEncodings: ['json', 'yaml'] };
    expect(statusOf(() => pick('application/vnd.kubernetes.protobuf', custom))).toMatchObject({
      code: 406,
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
    expect(pick('application/vnd.kubernetes.protobuf, application/json', custom).encoding).toBe('json');
    // PartialObjectMetadata is served in Protobuf whatever the kind.
    expect(pick('application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', custom).encoding).toBe('protobuf');
  });

  test('a Table in meta.k8s.io v1 or v1beta1, and in meta.cluster; in JSON and YAML only', () => {
    expect(pick('application/json;as=Table;g=meta.k8s.io;v=v1')).toEqual({
      encoding: 'json',
      contentType: 'application/json',
      representation: { kind: 'Table', group: 'meta.k8s.io', version: 'v1' },
      pretty: false,
    });
    expect(pick('application/json;as=Table;v=v1beta1;g=meta.k8s.io').representation).toEqual({ kind: 'Table', group: 'meta.k8s.io', version: 'v1beta1' });
    expect(pick('application/json;as=Table;g=meta.cluster;v=v1').representation).toEqual({ kind: 'Table', group: 'meta.cluster', version: 'v1' });
    expect(pick('application/yaml;as=Table;g=meta.k8s.io;v=v1').encoding).toBe('yaml');
    expect(pick('application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1, application/json')).toMatchObject({
      encoding: 'json',
      representation: { kind: 'object' },
    });
    expect(pick('*/*;as=Table;g=meta.k8s.io;v=v1')).toMatchObject({ encoding: 'json', representation: { kind: 'Table' } });
  });

  test('kubectl get: a Table first, plain JSON as the fallback', () => {
    const kubectl = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    expect(pick(kubectl).representation).toEqual({ kind: 'Table', group: 'meta.k8s.io', version: 'v1' });
    expect(pick(kubectl, { encodings: ['json'] }).representation).toEqual({ kind: 'object' });
  });

  test('PartialObjectMetadata and its list, as client-go asks for them', () => {
    const metadataClient =
      'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
    expect(pick(metadataClient)).toMatchObject({
      encoding: 'protobuf',
      representation: { kind: 'PartialObjectMetadataList', group: 'meta.k8s.io', version: 'v1' },
    });
    expect(pick('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1').representation.kind).toBe('PartialObjectMetadata');
  });

  test('conversions an endpoint cannot serve fall through to the next clause', () => {
    expect(pick('application/json;as=Table;g=meta.k8s.io;v=v2, application/yaml').contentType).toBe('application/yaml');
    expect(pick('application/json;as=Table;g=apps;v=v1, application/yaml').contentType).toBe('application/yaml');
    expect(pick('application/json;as=Table, application/yaml').contentType).toBe('application/yaml');
    expect(pick('application/json;as=Pod;g=meta.k8s.io;v=v1, application/yaml').contentType).toBe('application/yaml');
    expect(pick('application/json;g=meta.k8s.io;v=v1, application/yaml').contentType).toBe('application/yaml');
    expect(pick('application/json;as=Table;g=meta.k8s.io;v=v1, application/yaml', { encodings: ['json', 'yaml'] }).contentType).toBe('application/yaml');
  });

  test('stream and pretty parameters', () => {
    expect(pick('application/json;stream=watch').encoding).toBe('json');
    expect(pick('application/yaml;stream=watch, application/json').encoding).toBe('json');
    expect(pick('application/json;stream=other, application/yaml').encoding).toBe('yaml');
    expect(pick('application/json;pretty=1').pretty).toBe(true);
  });

  test('aggregated discovery on /api and /apis', () => {
    const discovery: OutputOptions = { encodings: ['json'], discovery: true };
    expect(pick('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json', discovery)).toMatchObject({
      encoding: 'json',
      contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      representation: { kind: 'APIGroupDiscoveryList', version: 'v2' },
    });
    expect(pick('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json', discovery).representation).toEqual({ kind: 'object' });
    expect(pick('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json', resource).representation).toEqual({ kind: 'object' });
  });

  test('406 when nothing acceptable is offered, listing every served type', () => {
    expect(statusOf(() => pick('text/html', { encodings: ['json', 'yaml'] }))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'only the following media types are accepted: application/json, application/yaml',
      reason: 'NotAcceptable',
      code: 406,
    });
    expect(statusOf(() => pick('application/cbor', { encodings: ['json', 'yaml', 'protobuf'] })).code).toBe(406);
    expect(pick('application/cbor', { encodings: ['json', 'yaml', 'protobuf', 'cbor'] }).encoding).toBe('cbor');
    expect(statusOf(() => pick('text/html', { encodings: ['json', 'yaml', 'protobuf', 'cbor'] })).message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor',
    );
  });
});

describe('negotiateStream', () => {
  test('JSON and Protobuf watch streams carry ;stream=watch; CBOR is a sequence', () => {
    expect(negotiateStream('application/json', resource).contentType).toBe('application/json;stream=watch');
    expect(negotiateStream('application/vnd.kubernetes.protobuf', resource).contentType).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    expect(negotiateStream('application/cbor', { ...resource, encodings: ['json', 'yaml', 'protobuf', 'cbor'] }).contentType).toBe('application/cbor-seq');
  });

  test('YAML first is 406 listing the stream types, even with JSON after it', () => {
    expect(statusOf(() => negotiateStream('application/yaml, application/json', resource))).toMatchObject({
      code: 406,
      message: 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    });
    expect(statusOf(() => negotiateStream('application/yaml', { ...resource, encodings: ['json', 'yaml', 'protobuf', 'cbor'] })).message).toBe(
      'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch, application/cbor-seq',
    );
  });
});

describe('negotiateError', () => {
  test('errors take any served type but no conversion; nothing fits means null (indented JSON)', () => {
    expect(negotiateError('application/yaml', ['json', 'yaml'])?.encoding).toBe('yaml');
    expect(negotiateError('application/json;as=Table;g=meta.k8s.io;v=v1, application/yaml', ['json', 'yaml'])?.encoding).toBe('yaml');
    expect(negotiateError('application/json;as=Table;g=meta.k8s.io;v=v1', ['json', 'yaml'])).toBeNull();
    expect(negotiateError('text/html', ['json'])).toBeNull();
  });
});

describe('negotiateInput', () => {
  const accepted = ['json', 'yaml', 'protobuf'] as const;

  test('Content-Type picks the decoder; none means JSON', () => {
    expect(negotiateInput(undefined, [...accepted])).toBe('json');
    expect(negotiateInput('application/json; charset=utf-8', [...accepted])).toBe('json');
    expect(negotiateInput('application/yaml', [...accepted])).toBe('yaml');
    expect(negotiateInput('application/vnd.kubernetes.protobuf', [...accepted])).toBe('protobuf');
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
    expect(statusOf(() => negotiateInput('application/cbor', [...accepted])).code).toBe(415);
    expect(negotiateInput('application/cbor', [...accepted, 'cbor'])).toBe('cbor');
  });
});
