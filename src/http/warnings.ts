import type { ServerResponse } from 'node:http';

/** A control character (Go's unicode.IsControl), or a lone surrogate (which has no UTF-8). */
const REFUSED = /[\p{Cc}\p{Cs}]/u;

/**
 * Adds an RFC 7234 warning as kube-apiserver does: code 299, agent "-", the text quoted with only
 * `"` and `\` escaped (net.NewWarningHeader). A text that is not valid UTF-8 or holds a control
 * character makes no header: NewWarningHeader refuses it and the warning recorder drops it.
 */
export function addWarning(res: ServerResponse, text: string): void {
  if (REFUSED.test(text)) return;
  // Go writes the header's UTF-8 bytes; Node writes a header string's characters as bytes (latin1).
  const value = Buffer.from(`299 - "${text.replace(/["\\]/g, '\\$&')}"`, 'utf8').toString('latin1');
  const existing = res.getHeader('Warning');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  if (!list.includes(value)) res.setHeader('Warning', [...list, value]);
}
