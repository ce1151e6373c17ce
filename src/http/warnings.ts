import type { ServerResponse } from 'node:http';

/** Adds an RFC 7234 warning as kube-apiserver does: code 299, agent "-", the text quoted. */
export function addWarning(res: ServerResponse, text: string): void {
  const value = `299 - ${JSON.stringify(text)}`;
  const existing = res.getHeader('Warning');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  if (!list.includes(value)) res.setHeader('Warning', [...list, value]);
}
