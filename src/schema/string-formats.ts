import { isIPv4, isIPv6 } from 'node:net';

/**
 * The string formats a CRD schema can use, checked as kube-openapi's strfmt registry checks them.
 * apiextensions-apiserver strips every other format (int32, int64, float, double, byte-less
 * custom names...) before validating, so those are never checked. Names are compared without
 * dashes, as strfmt normalizes them ("date-time" is "datetime").
 */

const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const hostname =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$/u;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const octet = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const rgbColor = new RegExp(`^rgb\\(\\s*${octet}\\s*,\\s*${octet}\\s*,\\s*${octet}\\s*\\)$`);
const mac = new RegExp(
  [6, 8, 20]
    .flatMap((n) => [':', '-'].map((sep) => `[0-9a-fA-F]{2}(?:${sep}[0-9a-fA-F]{2}){${n - 1}}`))
    .concat([3, 4, 10].map((n) => `[0-9a-fA-F]{4}(?:\\.[0-9a-fA-F]{4}){${n - 1}}`))
    .map((alt) => `^${alt}$`)
    .join('|'),
);
const creditCard =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
/** Go's time.ParseDuration syntax, then strfmt's looser "3 days"-style fallback. */
const goDuration = /^[-+]?(?:0|(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/;
const looseDuration = /(\d+)\s*([A-Za-zµ]+)/g;
const durationUnits = new Set(['ns', 'us', 'µs', 'ms', 's', 'sec', 'm', 'min', 'h', 'hr', 'd', 'day', 'w', 'wk']);

/** time.Parse("2006-01-02"): a real calendar date with a four-digit year. */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** strfmt.IsDateTime: a date, a "t", and hh:mm:ss[.frac](z|±hh:mm), compared as strings. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(parts[1]);
  return !!m && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

function isDuration(s: string): boolean {
  if (goDuration.test(s)) return true;
  return [...s.matchAll(looseDuration)].some((m) => durationUnits.has(m[2].trim().toLowerCase()));
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const [ip, bits] = [s.slice(0, slash), s.slice(slash + 1)];
  if (!/^\d{1,3}$/.test(bits)) return false;
  const max = isIPv4(ip) ? 32 : isIPv6(ip) ? 128 : -1;
  return Number(bits) <= max;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

function isCreditCard(s: string): boolean {
  const digits = s.replace(/[^0-9]+/g, '');
  return creditCard.test(digits) && luhn(digits);
}

function isISBN10(s: string): boolean {
  const v = s.replace(/[\s-]+/g, '');
  if (!/^\d{9}[\dX]$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(v[i]);
  sum += v[9] === 'X' ? 100 : 10 * Number(v[9]);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const v = s.replace(/[\s-]+/g, '');
  if (!/^\d{13}$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(v[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(v[12]);
}

function isHostname(s: string): boolean {
  return hostname.test(s) && s.length <= 255 && s.split('.').every((label) => label.length <= 63);
}

/** net/url.ParseRequestURI accepts an absolute URI or an absolute path, without spaces. */
function isRequestURI(s: string): boolean {
  if (/[\s\x00-\x1f\x7f]/.test(s)) return false;
  return s.startsWith('/') || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s);
}

/** net/mail.ParseAddress for the plain and the "Name <addr>" forms. */
function isEmail(s: string): boolean {
  const angle = /^[^<>]*<([^<>]+)>$/.exec(s.trim());
  return /^[^@\s<>()[\]\\,;:"]+@[^@\s<>()[\]\\,;:"]+$/.test(angle ? angle[1] : s);
}

const checks: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: (s) => isIPv4(s),
  ipv6: (s) => isIPv6(s),
  cidr: isCIDR,
  mac: (s) => mac.test(s),
  uuid: (s) => uuid.test(s),
  uuid3: (s) => uuid3.test(s),
  uuid4: (s) => uuid4.test(s),
  uuid5: (s) => uuid5.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => rgbColor.test(s),
  byte: (s) => base64.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

const normalize = (format: string): string => format.replace(/-/g, '');

/** The format apiextensions-apiserver keeps for validation, or '' when it strips it. */
export function supportedFormat(format: string | undefined): string {
  return format && Object.hasOwn(checks, normalize(format)) ? format : '';
}

/** Whether s is valid for a format supportedFormat kept. */
export function matchesFormat(format: string, s: string): boolean {
  return checks[normalize(format)](s);
}
