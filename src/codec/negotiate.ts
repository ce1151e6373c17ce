import { notAcceptable, unsupportedMediaType } from '../api/errors';
import { mediaTypeMatches, parseAccept, parseMediaType, type AcceptClause } from './media-type';

export type Encoding = 'json' | 'yaml' | 'protobuf' | 'cbor';

/** Media types by encoding; the first of each is what kapi writes, the rest are accepted spellings. */
const MEDIA_TYPES: Record<Encoding, string[]> = {
  json: ['application/json'],
  yaml: ['application/yaml'],
  protobuf: ['application/vnd.kubernetes.protobuf', 'application/vnd.cluster.protobuf'],
  cbor: ['application/cbor'],
};

/** The API groups a Table or PartialObjectMetadata may be asked for in. */
const META_GROUPS = new Set(['meta.k8s.io', 'meta.cluster']);

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
}

export interface OutputOptions {
  /** Encodings this endpoint can write, best first. */
  encodings: Encoding[];
  /** The endpoint serves Table and PartialObjectMetadata conversions (resource endpoints). */
  meta?: boolean;
  /** The endpoint serves aggregated discovery (/api and /apis). */
  discovery?: boolean;
}

export function mediaTypeOf(encoding: Encoding): string {
  return MEDIA_TYPES[encoding][0];
}

function encodingOf(type: string): Encoding | null {
  for (const [encoding, types] of Object.entries(MEDIA_TYPES) as [Encoding, string[]][]) {
    if (types.includes(type)) return encoding;
  }
  return null;
}

function representationFor(clause: AcceptClause, opts: OutputOptions): Representation | null {
  const { as, g, v } = clause.params;
  // Any of as, g or v asks for a conversion; a group or version alone names no kind, so nothing serves it.
  if (as === undefined) return g === undefined && v === undefined ? { kind: 'object' } : null;
  if (as === 'APIGroupDiscoveryList') {
    if (!opts.discovery || g !== 'apidiscovery.k8s.io' || (v !== 'v2' && v !== 'v2beta1')) return null;
    return { kind: 'APIGroupDiscoveryList', version: v };
  }
  if (!opts.meta || !META_GROUPS.has(g ?? '') || (v !== 'v1' && v !== 'v1beta1')) return null;
  if (as === 'Table') return { kind: 'Table', group: g, version: v };
  if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { kind: as, group: g, version: v };
  return null;
}

/** Picks the response format from Accept, or throws 406 NotAcceptable. */
export function negotiateOutput(accept: string | undefined, opts: OutputOptions): OutputChoice {
  for (const clause of parseAccept(accept)) {
    const representation = representationFor(clause, opts);
    if (!representation) continue;
    const encoding = opts.encodings.find((e) => MEDIA_TYPES[e].some((t) => mediaTypeMatches(clause.type, t)));
    if (!encoding) continue;
    // Table and discovery documents have no YAML or Protobuf form here but JSON.
    if (representation.kind !== 'object' && encoding !== 'json' && !clause.type.includes('*')) continue;
    const chosen = representation.kind === 'object' ? encoding : 'json';
    const contentType =
      representation.kind === 'APIGroupDiscoveryList'
        ? `application/json;g=apidiscovery.k8s.io;v=${representation.version};as=APIGroupDiscoveryList`
        : mediaTypeOf(chosen);
    return { encoding: chosen, contentType, representation };
  }
  throw notAcceptable(opts.encodings.map(mediaTypeOf));
}

/** Picks the request body decoder from Content-Type, or throws 415. An absent type means JSON. */
export function negotiateInput(contentType: string | undefined, accepted: Encoding[]): Encoding {
  if (!contentType || contentType.trim() === '') return 'json';
  const encoding = encodingOf(parseMediaType(contentType).type);
  if (encoding && accepted.includes(encoding)) return encoding;
  throw unsupportedMediaType(accepted.map(mediaTypeOf));
}
