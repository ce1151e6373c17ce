/** Object timestamps as metav1.Time writes them. */

let lastTimestamp = { second: NaN, text: '' };

/** RFC 3339 with second precision, as metav1.Time serialises; every write in a second asks for the same one. */
export function timestampAt(epochSeconds: number): string {
  const second = Math.floor(epochSeconds);
  if (second !== lastTimestamp.second) lastTimestamp = { second, text: new Date(second * 1000).toISOString().replace('.000Z', 'Z') };
  return lastTimestamp.text;
}

export function nowTimestamp(offsetSeconds = 0): string {
  return timestampAt(Date.now() / 1000 + offsetSeconds);
}
