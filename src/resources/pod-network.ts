import { field, type FieldErrorList } from '../api/field-errors';
import { objectsIn, stringOf } from '../api/json-read';
import { isDns1123Subdomain, isDns1123SubdomainWithUnderscore } from '../api/name-validation';
import { isPlainObject } from '../api/types';
import { legacyIpErrors } from './network-validation';

/**
 * A PodSpec's name resolution, dnsConfig and hostAliases, as ValidatePodSpec checks them. Their
 * IPs are IsValidIPForLegacyField with no old value spared: a pod's spec is validated whole on
 * every update, and kube passes no old IPs there.
 */

const MAX_NAMESERVERS = 3;
const MAX_SEARCH_PATHS = 32;
const MAX_SEARCH_LIST_CHARS = 2048;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(stringOf) : []);

/**
 * validatePodDNSConfig: nameservers given when dnsPolicy is None, three at most, each an IP; 32
 * search paths at most, 2048 characters joined, each (but ".") a subdomain that may hold '_' once
 * its trailing dot is dropped (RelaxedDNSSearchValidation, GA); options named.
 */
export function dnsConfigErrors(spec: Record<string, unknown>, path: string): FieldErrorList {
  const config = spec.dnsConfig;
  const at = `${path}.dnsConfig`;
  const nameservers = isPlainObject(config) ? strings(config.nameservers) : [];
  if (spec.dnsPolicy === 'None') {
    if (!isPlainObject(config)) return [field.required(at, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (nameservers.length === 0) return [field.required(`${at}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isPlainObject(config)) return [];
  const errs: FieldErrorList = [];
  if (nameservers.length > MAX_NAMESERVERS) {
    errs.push(field.invalid(`${at}.nameservers`, nameservers, `must not have more than ${MAX_NAMESERVERS} nameservers`));
  }
  nameservers.forEach((ns, i) => errs.push(...legacyIpErrors(`${at}.nameservers[${i}]`, ns)));
  const searches = strings(config.searches);
  if (searches.length > MAX_SEARCH_PATHS) {
    errs.push(field.invalid(`${at}.searches`, searches, `must not have more than ${MAX_SEARCH_PATHS} search paths`));
  }
  if (Buffer.byteLength(searches.join(' '), 'utf8') > MAX_SEARCH_LIST_CHARS) {
    errs.push(field.invalid(`${at}.searches`, searches, `must not have more than ${MAX_SEARCH_LIST_CHARS} characters (including spaces) in the search list`));
  }
  searches.forEach((search, i) => {
    if (search === '.') return;
    const name = search.endsWith('.') ? search.slice(0, -1) : search;
    for (const msg of isDns1123SubdomainWithUnderscore(name)) errs.push(field.invalid(`${at}.searches[${i}]`, name, msg));
  });
  objectsIn(config.options).forEach((option, i) => {
    if (stringOf(option.name) === '') errs.push(field.required(`${at}.options[${i}]`, 'must not be empty'));
  });
  return errs;
}

/** ValidateHostAliases: each alias's IP, and its hostnames DNS subdomains. */
export function hostAliasErrors(spec: Record<string, unknown>, path: string): FieldErrorList {
  return objectsIn(spec.hostAliases).flatMap((alias, i) => {
    const at = `${path}.hostAliases[${i}]`;
    const errs = legacyIpErrors(`${at}.ip`, stringOf(alias.ip));
    strings(alias.hostnames).forEach((name, j) => {
      for (const msg of isDns1123Subdomain(name)) errs.push(field.invalid(`${at}.hostnames[${j}]`, name, msg));
    });
    return errs;
  });
}
