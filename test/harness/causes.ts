/** The causes of a 422 Status body, one line each, for comparing whole lists in tests. */

interface StatusBody {
  details?: { causes?: { field: string; message: string; reason: string }[] };
}

/** "FieldValueRequired spec.x: Required value" */
export function causes(body: StatusBody): string[] {
  return (body.details?.causes ?? []).map((c) => `${c.reason} ${c.field}: ${c.message}`);
}

/** "spec.x: Required value" */
export function fieldCauses(body: StatusBody): string[] {
  return (body.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}
