import { notAcceptable, unsupportedMediaType } from '../api/errors';
import { clauseMatches, parseAccept, parseMediaType, type AcceptClause } from './media-type';

/**
 * Content negotiation in one place, as kube-apiserver does it: Accept clauses in goautoneg's order,
 * each tried against the served media types in the server's order (JSON, YAML, Protobuf, CBOR);
 * the first clause whose parameters the endpoint allows wins, else 406.
 */

export type Encoding = 'json' | 'yaml' | 'protobuf' | 'cbor';

/** Served media types in kube-apiserver's order; application/vnd.cluster.protobuf is kapi's alias. */
const SERVED: { mediaType: string; encoding: Encoding }[] = [
  { mediaType: 'application/json', encoding: 'json' },
  { mediaType: 'application/yaml', encoding: 'yaml' },
  { mediaType: 'application/vnd.kubernetes.protobuf', encoding: 'protobuf' },
  { mediaType: 'application/vnd.cluster.protobuf', encoding: 'protobuf' },
  { mediaType: 'application/cbor', encoding: 'cbor' },
];

/** The groups a Table or PartialObjectMetadata may be asked for in; meta.cluster is kapi's alias. */
const META_GROUPS = new Set(['meta.k8s.io', 'meta.cluster']);
const META_VERSIONS = new Set(['v1', 'v1beta1']);

/** Encodings of the conversions: Table in JSON and YAML only; metadata in any but CBOR. */
const TABLE_ENCODINGS: Encoding[] = ['json', 'yaml'];
const METADATA_ENCODINGS: Encoding[] = ['json', 'yaml', 'protobuf'];

export type Representation =
  | { kind: 'object' }
  | { kind: 'Table'; group: string; version: string }
  | { kind: 'PartialObjectMetadata' | 'PartialObjectMetadataList'; group: string; version: string }
  | { kind: 'APIGroupDiscoveryList'; version: string };

export interface OutputChoice {
  encoding: Encoding;
  /** The Content-Type to answer with. */
  contentType: string;
  representation: Representation;
  /** The clause asked for pretty output (pretty=1). */
  pretty: boolean;
}

export interface OutputOptions {
  /** Every encoding the server speaks, in order: what a 406 lists. */
  encodings: Encoding[];
  /** Encodings the object itself can be written in (no Protobuf for a kind without a message); default all. */
  objectEncodings?: Encoding[];
  /** The endpoint serves Table and PartialObjectMetadata conversions (resource endpoints). */
  meta?: boolean;
  /** The endpoint serves aggregated discovery (/api and /apis). */
  discovery?: boolean;
}

export function mediaTypeOf(encoding: Encoding): string {
  return SERVED.find((s) => s.encoding === encoding)!.mediaType;
}

/** kube-apiserver's names for watch streams: JSON and Protobuf with ;stream=watch, CBOR as a sequence. */
export function streamMediaTypeOf(encoding: Encoding): string {
  return encoding === 'cbor' ? 'application/cbor-seq' : `${mediaTypeOf(encoding)};stream=watch`;
}

export function hasStreamForm(encoding: Encoding): boolean {
  return encoding !== 'yaml';
}

function conversionOf(clause: AcceptClause, opts: OutputOptions): Representation | null | undefined {
  const { as, g, v } = clause.params;
  if (as === undefined && g === undefined && v === undefined) return undefined;
  if (as === 'APIGroupDiscoveryList' && opts.discovery && g === 'apidiscovery.k8s.io' && (v === 'v2' || v === 'v2beta1')) {
    return { kind: 'APIGroupDiscoveryList', version: v };
  }
  if (!opts.meta || !META_GROUPS.has(g ?? '') || !META_VERSIONS.has(v ?? '')) return null;
  if (as === 'Table') return { kind: 'Table', group: g!, version: v! };
  if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { kind: as, group: g!, version: v! };
  return null;
}

function encodingsFor(representation: Representation, opts: OutputOptions): Encoding[] {
  switch (representation.kind) {
    case 'object':
      return opts.objectEncodings ?? opts.encodings;
    case 'Table':
      return TABLE_ENCODINGS;
    case 'APIGroupDiscoveryList':
      return ['json'];
    default:
      return METADATA_ENCODINGS;
  }
}

/** The options a clause asks of one served type; null when the endpoint cannot serve them. */
function accept(clause: AcceptClause, encoding: Encoding, opts: OutputOptions): { representation: Representation; pretty: boolean } | null {
  const { stream, sv, pretty } = clause.params;
  if (stream && (!hasStreamForm(encoding) || stream !== 'watch')) return null;
  if (sv && !(opts.meta && sv === 'v1')) return null;
  const conversion = conversionOf(clause, opts);
  if (conversion === null) return null;
  const representation: Representation = conversion ?? { kind: 'object' };
  if (!encodingsFor(representation, opts).includes(encoding)) return null;
  return { representation, pretty: pretty === '1' };
}

function served(opts: OutputOptions): { mediaType: string; encoding: Encoding }[] {
  return SERVED.filter((s) => opts.encodings.includes(s.encoding));
}

/**
 * Choices already made per options object and Accept header: clients send the same few headers
 * on every request. Headers come from clients, so past a bound new ones are not kept.
 */
const choices = new WeakMap<OutputOptions, Map<string, Readonly<OutputChoice>>>();
const CHOICES_PER_OPTIONS_MAX = 64;

/** Picks the response format from Accept, or throws 406 NotAcceptable listing every served type. */
export function negotiateOutput(header: string | undefined, opts: OutputOptions): OutputChoice {
  let known = choices.get(opts);
  const choice = known?.get(header ?? '');
  if (choice) return choice;
  const chosen = Object.freeze(choose(header, opts));
  if (!known) choices.set(opts, (known = new Map()));
  if (known.size < CHOICES_PER_OPTIONS_MAX) known.set(header ?? '', chosen);
  return chosen;
}

function choose(header: string | undefined, opts: OutputOptions): OutputChoice {
  const types = served(opts);
  if (!header) {
    const first = types.find((t) => encodingsFor({ kind: 'object' }, opts).includes(t.encoding))!;
    return { encoding: first.encoding, contentType: first.mediaType, representation: { kind: 'object' }, pretty: false };
  }
  for (const clause of parseAccept(header)) {
    for (const t of types) {
      if (!clauseMatches(clause, t.mediaType)) continue;
      const ok = accept(clause, t.encoding, opts);
      if (!ok) continue;
      const contentType =
        ok.representation.kind === 'APIGroupDiscoveryList'
          ? `application/json;g=apidiscovery.k8s.io;v=${ok.representation.version};as=APIGroupDiscoveryList`
          : t.mediaType;
      return { encoding: t.encoding, contentType, ...ok };
    }
  }
  throw notAcceptable(opts.encodings.map(mediaTypeOf));
}

/**
 * A watch's format: negotiated as any response, then 406 (listing the stream types) when the
 * chosen encoding has no stream form (YAML), even if a later clause would have had one.
 */
export function negotiateStream(header: string | undefined, opts: OutputOptions): OutputChoice {
  const output = negotiateOutput(header, opts);
  if (!hasStreamForm(output.encoding)) throw notAcceptable(opts.encodings.filter(hasStreamForm).map(streamMediaTypeOf));
  // The foundation issue names JSON streams `application/json;stream=watch` (kube-apiserver itself says plain `application/json`).
  const contentType = output.encoding === 'cbor' ? 'application/cbor-seq' : `${output.contentType};stream=watch`;
  return { ...output, contentType };
}

/**
 * The format of an error: any served type, no conversions (kube-apiserver's default endpoint
 * restrictions). Null when no clause fits: the Status is then written as indented JSON.
 */
export function negotiateError(header: string | undefined, encodings: Encoding[]): OutputChoice | null {
  try {
    return choose(header, { encodings });
  } catch {
    return null;
  }
}

/** Picks the request body decoder from Content-Type, or throws 415. An absent type means JSON. */
export function negotiateInput(contentType: string | undefined, accepted: Encoding[]): Encoding {
  if (!contentType || contentType.trim() === '') return 'json';
  // NegotiateInputSerializerForMediaType: a type mime.ParseMediaType refuses matches nothing.
  const type = parseMediaType(contentType)?.type;
  const match = type === undefined ? undefined : SERVED.find((s) => s.mediaType === type && accepted.includes(s.encoding));
  if (match) return match.encoding;
  throw unsupportedMediaType(accepted.map(mediaTypeOf));
}
