import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GroupVersionKind } from '../../api/types';
import type { Encoding, OutputChoice } from '../../codec/negotiate';
import type { PatchSchema } from '../../patch/strategic-merge';
import type { GenericStore } from '../../registry/generic-store';
import type { RestStore } from '../../registry/resource-registry';
import type { ServedKind } from '../../registry/resource-definition';
import type { RequestContext } from '../../registry/request-context';
import type { ObjectNode } from '../../schema/typed-schema';
import type { BodyDecoder } from '../body-decoder';
import type { ResourceRequestInfo } from '../request-info';

/**
 * Everything a verb handler needs about one resource request, resolved once by the router. Only
 * create reaches a resource that is not stored, so only its handler takes any RestStore.
 */
export interface ResourceRequest<S extends RestStore = GenericStore> {
  req: IncomingMessage;
  res: ServerResponse;
  info: ResourceRequestInfo;
  /** The request as the registry sees it: user, request info, deadline, signal, warnings, audit annotations. */
  ctx: RequestContext;
  store: S;
  /** The kind this path's bodies carry (the resource's own, or a subresource's like Scale) and its schema. */
  served: { kind: ServedKind; schema: ObjectNode | null };
  query: URLSearchParams;
  output: OutputChoice;
  pretty: boolean;
  /** The client takes gzip and APIResponseCompression is on: large responses are compressed. */
  compress: boolean;
  /** Request body encodings this server accepts. */
  inputEncodings: Encoding[];
  /** Decodes large YAML and CBOR bodies off the event loop. */
  bodyDecoder: BodyDecoder;
  /** The strategic-merge schema of a kind; null when the kind has none (custom resources). */
  patchSchemaFor(kind: GroupVersionKind): PatchSchema;
  /** The WatchList feature gate: streaming lists (sendInitialEvents) are allowed. */
  watchListEnabled: boolean;
  /** The AllowUnsafeMalformedObjectDeletion feature gate. */
  unsafeMalformedObjectDeletion: boolean;
  /** Counts one watch event sent (apiserver_watch_events_total). */
  onWatchEvent(): void;
}

/** An unstructured object in kube (no Go type; CRDs themselves have one). */
export const isCustomResource = (r: ResourceRequest<RestStore>): boolean =>
  r.store.def.ownSchema !== undefined && r.store.def.group !== 'apiextensions.k8s.io' && r.served.kind.kind === r.store.def.kind;
