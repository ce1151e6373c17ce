import { badRequest } from '../api/errors';

/** A request target split as Go's net/http reads it (url.ParseRequestURI): the decoded path and the raw query. */
export interface RequestTarget {
  /** The path, percent-decoded (URL.Path); what routing and RequestInfo read. */
  path: string;
  /** The path as sent, still encoded; what express matches non-resource routes against. */
  rawPath: string;
  /** The query string without its '?'. */
  rawQuery: string;
}

const HEX = /^[0-9a-fA-F]{2}$/;

/**
 * Go's url unescape: every '%' starts two hex digits, '+' a space only in a query, and the bytes
 * read as UTF-8 (node hands the request line over byte for byte, latin1: each char is one byte as
 * sent). The index of a broken escape where there is one.
 */
function unescape(raw: string, plusIsSpace: boolean): string | number {
  if (!(plusIsSpace ? /[%+\u0080-\uffff]/ : /[%\u0080-\uffff]/).test(raw)) return raw;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25) {
      if (!HEX.test(raw.slice(i + 1, i + 3))) return i;
      bytes.push(Number.parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(plusIsSpace && c === 0x2b ? 0x20 : c & 0xff);
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * Percent-decodes a path as Go's url.PathUnescape does ('+' stays a '+'). Go decodes the whole
 * path, "%2F" included, before kube-apiserver splits it into segments (RequestInfoFactory reads URL.Path).
 */
export function unescapePath(raw: string): string {
  const path = unescape(raw, false);
  if (typeof path === 'number') throw badRequest(`invalid URL escape ${JSON.stringify(raw.slice(path, path + 3))}`);
  return path;
}

/** url.QueryUnescape; null where an escape is broken. */
function queryUnescape(raw: string): string | null {
  const value = unescape(raw, true);
  return typeof value === 'number' ? null : value;
}

/**
 * A query as Go's url.ParseQuery reads it, as kube-apiserver's handlers see it (URL.Query()
 * drops what fails): pairs split at '&' only, a pair holding ';' or a broken escape left out.
 */
export function parseQuery(raw: string): URLSearchParams {
  const query = new URLSearchParams();
  if (raw === '') return query;
  for (const pair of raw.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (key !== null && value !== null) query.append(key, value);
  }
  return query;
}

/**
 * Origin form ("/path?query"), absolute form ("http://host:port/path?query": only its path and
 * query count, the authority is not checked, as in Go) and the asterisk form ("*"). Anything else
 * is a 400.
 */
export function parseRequestTarget(target: string): RequestTarget {
  let rest = target;
  if (!rest.startsWith('/') && rest !== '*') {
    const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.exec(rest);
    if (!scheme) throw badRequest(`invalid request target ${JSON.stringify(target.slice(0, 100))}`);
    const afterAuthority = rest.slice(scheme[0].length).search(/[/?]/);
    rest = afterAuthority < 0 ? '/' : rest.slice(scheme[0].length + afterAuthority);
    if (rest.startsWith('?')) rest = `/${rest}`;
  }
  const q = rest.indexOf('?');
  const rawPath = q < 0 ? rest : rest.slice(0, q);
  const rawQuery = q < 0 ? '' : rest.slice(q + 1);
  return { path: unescapePath(rawPath), rawPath, rawQuery };
}
