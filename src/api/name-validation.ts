/** Kubernetes' name, label and qualified-name rules, with apimachinery's messages. */

function regexError(msg: string, pattern: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${pattern}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${pattern}')`;
}

const maxLenError = (n: number): string => `must be no more than ${n} characters`;

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
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
  if (value.length > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRe.test(value)) {
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
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
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

export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
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
    else for (const msg of isDns1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameMessage, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameMessage, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
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
