import type { IncomingMessage, ServerResponse } from 'node:http';
import { auditUser, microTime, type AuditEvent, type ObjectReference } from '../../audit/event';
import type { AuditSink } from '../../audit/log-backend';
import { evaluatePolicy, type AuditPolicy, type Level, type Stage } from '../../audit/policy';
import type { UserInfo } from '../../auth/user';
import type { RequestInfo } from '../request-info';

/** Bodies larger than this are not copied into events. */
const MAX_CAPTURED_BODY = 1024 * 1024;

const LEVEL_ORDER: Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const atLeast = (level: Level, wanted: Level): boolean => LEVEL_ORDER.indexOf(level) >= LEVEL_ORDER.indexOf(wanted);

/** One request's audit record: its stages are written as they happen. */
export interface RequestAudit {
  annotate(key: string, value: string): void;
  impersonated(user: UserInfo): void;
  /** The handler failed unexpectedly (kube-apiserver's Panic stage). */
  panic(message: string): void;
}

/** utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer address, each once. */
function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded === 'string')
    ips.push(
      ...forwarded
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  const real = req.headers['x-real-ip'];
  if (typeof real === 'string' && real.trim()) ips.push(real.trim());
  const peer = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  if (peer) ips.push(peer);
  return [...new Set(ips)];
}

/**
 * The request's object reference: from the path, completed from the object a create or update
 * sends (audit.LogRequestObject fills what the path leaves empty), in the Event's field order.
 */
function objectRef(info: RequestInfo, sent: unknown): ObjectReference | undefined {
  if (!info.isResourceRequest) return undefined;
  const meta = sent && typeof sent === 'object' ? (sent as { metadata?: Record<string, unknown> }).metadata : undefined;
  const fromObject = (key: string): string | undefined => (meta && typeof meta[key] === 'string' && meta[key] ? (meta[key] as string) : undefined);
  const ref: ObjectReference = {
    resource: info.resource || undefined,
    namespace: info.namespace || fromObject('namespace'),
    name: info.name || fromObject('name'),
    uid: fromObject('uid'),
    apiGroup: info.group,
    apiVersion: info.version,
    resourceVersion: fromObject('resourceVersion'),
    subresource: info.subresource || undefined,
  };
  for (const key of Object.keys(ref) as (keyof ObjectReference)[]) if (ref[key] === undefined) delete ref[key];
  return ref;
}

function parseJson(body: Buffer, contentType: string | undefined): unknown {
  if (!contentType || !/json/.test(contentType) || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Copies what passes through a stream's emit('data') without changing how the stream flows. */
function tapRequest(req: IncomingMessage): () => Buffer {
  const chunks: Buffer[] = [];
  let size = 0;
  const emit = req.emit.bind(req);
  req.emit = ((event: string, ...args: unknown[]) => {
    if (event === 'data' && size <= MAX_CAPTURED_BODY) {
      const chunk = args[0] as Buffer;
      size += chunk.length;
      chunks.push(chunk);
    }
    return emit(event, ...args);
  }) as typeof req.emit;
  return () => (size <= MAX_CAPTURED_BODY ? Buffer.concat(chunks) : Buffer.alloc(0));
}

/**
 * Copies a response's body (unless it is compressed or too large; while `copying` says so) and
 * notices when headers go out.
 */
function tapResponse(res: ServerResponse, copying: () => boolean, onHeaders: () => void): () => Buffer {
  const chunks: Buffer[] = [];
  let size = 0;
  let headersSeen = false;
  const seen = (): void => {
    if (!headersSeen) {
      headersSeen = true;
      onHeaders();
    }
  };
  const keep = (chunk: unknown, encoding?: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || size > MAX_CAPTURED_BODY || !copying()) return;
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    size += buf.length;
    chunks.push(buf);
  };
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  const writeHead = res.writeHead.bind(res);
  res.writeHead = ((...args: Parameters<typeof res.writeHead>) => {
    const out = writeHead(...args);
    seen();
    return out;
  }) as typeof res.writeHead;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    seen();
    keep(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return (end as (...a: unknown[]) => ServerResponse)(chunk, ...rest);
  }) as typeof res.end;
  return () => (size <= MAX_CAPTURED_BODY && !res.getHeader('content-encoding') ? Buffer.concat(chunks) : Buffer.alloc(0));
}

/** metav1.Status as the event's responseStatus: the code always, the failure's fields when the body was a Status. */
function responseStatus(code: number, body: unknown): Record<string, unknown> {
  const status: Record<string, unknown> = { metadata: {} };
  if (body && typeof body === 'object' && (body as { kind?: unknown }).kind === 'Status') {
    const s = body as Record<string, unknown>;
    for (const k of ['status', 'message', 'reason', 'details'] as const) if (s[k] !== undefined) status[k] = s[k];
  }
  status.code = code;
  return status;
}

/** The field order of kube-apiserver's JSON events. */
const EVENT_FIELDS: (keyof AuditEvent)[] = [
  'kind',
  'apiVersion',
  'level',
  'auditID',
  'stage',
  'requestURI',
  'verb',
  'user',
  'impersonatedUser',
  'sourceIPs',
  'userAgent',
  'objectRef',
  'responseStatus',
  'requestObject',
  'responseObject',
  'requestReceivedTimestamp',
  'stageTimestamp',
  'annotations',
];

export interface AuditFilterOptions {
  policy: AuditPolicy;
  sink: AuditSink;
}

/**
 * filters.WithAudit: decides the request's level from the policy, then writes one event per
 * stage (RequestReceived; ResponseStarted for watches; ResponseComplete or Panic) with the
 * Audit-Id of the response. Returns null when the request is not audited (level None).
 */
export function beginAudit(
  opts: AuditFilterOptions,
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  path: string,
  user: UserInfo,
): RequestAudit | null {
  const { level, omitStages } = evaluatePolicy(opts.policy, {
    user,
    verb: info.verb,
    resourceRequest: info.isResourceRequest,
    path,
    apiGroup: info.isResourceRequest ? info.group : '',
    namespace: info.isResourceRequest ? info.namespace : '',
    resource: info.isResourceRequest ? info.resource : '',
    subresource: info.isResourceRequest ? info.subresource : '',
    name: info.isResourceRequest ? info.name : '',
  });
  if (level === 'None') return null;
  const received = Date.now();
  const annotations: Record<string, string> = {};
  let impersonatedUser: Record<string, unknown> | undefined;
  let finished = false;
  // Creates and updates are read at every level: their object completes objectRef.
  const requestBody = atLeast(level, 'Request') || req.method === 'POST' || req.method === 'PUT' ? tapRequest(req) : null;
  let sent: unknown;
  const longRunning = info.isResourceRequest && info.verb === 'watch';
  const base = (stage: Stage): AuditEvent => {
    const event: AuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level,
      auditID: String(res.getHeader('Audit-Id') ?? ''),
      stage,
      requestURI: req.url ?? '/',
      verb: info.verb,
      user: auditUser(user),
      sourceIPs: sourceIPs(req),
      requestReceivedTimestamp: microTime(received),
      stageTimestamp: microTime(Date.now()),
    };
    if (impersonatedUser) event.impersonatedUser = impersonatedUser;
    const ua = req.headers['user-agent'];
    if (ua) event.userAgent = ua;
    const ref = objectRef(info, sent);
    if (ref) event.objectRef = ref;
    return event;
  };
  const emit = (event: AuditEvent): void => {
    if (omitStages.includes(event.stage)) return;
    if (Object.keys(annotations).length > 0 && event.stage !== 'RequestReceived') event.annotations = { ...annotations };
    const ordered: Record<string, unknown> = {};
    for (const key of EVENT_FIELDS) if (event[key] !== undefined) ordered[key] = event[key];
    opts.sink.write(`${JSON.stringify(ordered)}\n`);
  };
  const bodies = (event: AuditEvent, responseBody: unknown): void => {
    if (atLeast(level, 'Request') && sent !== undefined) event.requestObject = sent;
    if (atLeast(level, 'RequestResponse') && responseBody !== undefined) event.responseObject = responseBody;
  };
  const readSent = (): void => {
    if (requestBody) sent = parseJson(requestBody(), req.headers['content-type']);
  };
  // A watch's stream is not kept; a refusal before it starts is (its Status goes in responseStatus).
  const responseBody = tapResponse(
    res,
    () => !longRunning || res.statusCode >= 400,
    () => {
      if (longRunning) emit({ ...base('ResponseStarted'), responseStatus: { metadata: {}, code: res.statusCode } });
    },
  );
  emit(base('RequestReceived'));
  res.on('close', () => {
    if (finished) return;
    finished = true;
    readSent();
    const event = base('ResponseComplete');
    const parsed = parseJson(responseBody(), String(res.getHeader('content-type') ?? ''));
    event.responseStatus = responseStatus(res.statusCode, parsed);
    bodies(event, parsed);
    emit(event);
  });
  return {
    annotate: (key, value) => void (annotations[key] = value),
    impersonated: (u) => void (impersonatedUser = auditUser(u)),
    panic: (message) => {
      if (finished) return;
      finished = true;
      readSent();
      const event = base('Panic');
      event.responseStatus = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${message}`, reason: 'InternalError', code: 500 };
      bodies(event, undefined);
      emit(event);
    },
  };
}
