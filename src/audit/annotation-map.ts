/**
 * The audit annotations of one request as the registry adds them (RequestContext.auditAnnotations),
 * each passed on at once to the request's audit event, as audit.AddAuditAnnotation writes into the
 * event kube keeps in the request context.
 */
export class AuditAnnotationMap extends Map<string, string> {
  private readonly annotate: ((key: string, value: string) => void) | undefined;

  constructor(annotate: ((key: string, value: string) => void) | undefined) {
    super();
    this.annotate = annotate;
  }

  override set(key: string, value: string): this {
    this.annotate?.(key, value);
    return super.set(key, value);
  }
}
