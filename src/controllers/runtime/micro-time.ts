/** metav1.MicroTime as it is written on the wire: RFC 3339 with microseconds, in UTC. */
export function microTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function parseMicroTime(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}
