/** Kubernetes' name, label and qualified-name rules, with apimachinery's messages. */

function regexError(msg: string, pattern: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${pattern}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${pattern}')`;
}

// Go's len() counts UTF-8 bytes, so every length limit here does too (a JS string's length counts UTF-16 units).
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');
// validation.MaxLenError, used by the DNS name checks, still speaks of characters; content.MaxLenError, behind
// content.IsLabelKey and content.IsLabelValue since apimachinery 1.35, says what it measures: bytes.
const maxLenError = (n: number): string => `must be no more than ${n} characters`;
const contentMaxLenError = (n: number): string => `must be no more than ${n} bytes`;

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1123_LABEL_WITH_UNDERSCORE = '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_WITH_UNDERSCORE = `${DNS1123_LABEL_WITH_UNDERSCORE}(\\.${DNS1123_LABEL_WITH_UNDERSCORE})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;

const anchored = (p: string): RegExp => new RegExp(`^${p}$`);
const dns1123LabelRe = anchored(DNS1123_LABEL);
const dns1123SubdomainRe = anchored(DNS1123_SUBDOMAIN);
const dns1035LabelRe = anchored(DNS1035_LABEL);
const qualifiedNameRe = anchored(QUALIFIED_NAME);
const labelValueRe = anchored(LABEL_VALUE);

/** A function returning the list of problems with a name; `prefix` validates a generateName. */
export type NameValidator = (name: string, prefix: boolean) => string[];

function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (dns1123SubdomainRe.test(value) && !dns1123LabelRe.test(value)) {
    // validation.IsDNS1123Label (since 1.27): a valid subdomain that is no label, its length checked already,
    // has dots, the common mistake, which gets its own message.
    errs.push('must not contain dots');
  } else if (!dns1123LabelRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

export function isDns1123Subdomain(value: string): string[] {
  return dns1123Subdomain(value, maxLenError);
}

function dns1123Subdomain(value: string, tooLong: (n: number) => string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(tooLong(253));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        'example.com',
      ),
    );
  }
  return errs;
}

/** IsDNS1123SubdomainWithUnderscore: a DNS subdomain whose labels may also hold and start with '_' (DNS search paths). */
export function isDns1123SubdomainWithUnderscore(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!anchored(DNS1123_SUBDOMAIN_WITH_UNDERSCORE).test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_WITH_UNDERSCORE,
        'example.com',
      ),
    );
  }
  return errs;
}

export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

export const nameIsDnsSubdomain: NameValidator = (name, prefix) => isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDnsLabel: NameValidator = (name, prefix) => isDns1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDns1035Label: NameValidator = (name, prefix) => isDns1035Label(prefix ? maskTrailingDash(name) : name);

/** Rules every object name obeys, because names are URL path segments. */
export const nameIsPathSegment: NameValidator = (name, prefix) => {
  const errs: string[] = [];
  if (!prefix) {
    for (const illegal of ['.', '..']) if (name === illegal) errs.push(`may not be '${illegal}'`);
  }
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
};

const qualifiedNameMessage = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/**
 * content.IsLabelKey (validation.IsQualifiedName is an alias of it since apimachinery 1.35): label and annotation
 * keys, finalizers and the other "qualified names". Its prefix check is content.IsDNS1123Subdomain, whose length
 * error says bytes.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const [prefix] = parts;
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const msg of dns1123Subdomain(prefix, contentMaxLenError)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a valid label key ${regexError(qualifiedNameMessage, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${contentMaxLenError(63)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameMessage, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** content.IsLabelValue (validation.IsValidLabelValue is an alias of it since apimachinery 1.35). */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(contentMaxLenError(63));
  if (!labelValueRe.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}
