import {
  isDns1035Label,
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDns1035Label,
  nameIsDnsLabel,
  nameIsDnsSubdomain,
  nameIsPathSegment,
} from './name-validation';

// Messages from k8s.io/apimachinery/pkg/util/validation/validation.go. RegexError writes
// "'a', " then " or " before the next example, hence the double space.
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QNAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('DNS-1123 label', () => {
  test.each(['a', 'abc', 'a-1', '0', 'a'.repeat(63)])('accepts %j', (v) => expect(isDns1123Label(v)).toEqual([]));

  test.each(['', 'A', '-a', 'a-', 'a_b', 'a.-b'])('rejects %j with the regex message', (v) => {
    expect(isDns1123Label(v)).toEqual([LABEL_MSG]);
  });

  test('a subdomain that is no label is told it has dots', () => {
    expect(isDns1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDns1123Label(`${'a'.repeat(62)}.b`)).toEqual(['must be no more than 63 characters', 'must not contain dots']);
  });

  test('over 63 characters reports the length first', () => {
    expect(isDns1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isDns1123Label(`${'a'.repeat(63)}-`)).toEqual(['must be no more than 63 characters', LABEL_MSG]);
  });
});

describe('DNS-1123 subdomain', () => {
  test.each(['a', 'a.b', 'example.com', '1.2.3', 'a-b.c-d'])('accepts %j', (v) => expect(isDns1123Subdomain(v)).toEqual([]));

  test.each(['', 'A.b', 'a..b', '.a', 'a.', 'a_b'])('rejects %j', (v) => expect(isDns1123Subdomain(v)).toEqual([SUBDOMAIN_MSG]));

  test('253 characters is the limit', () => {
    const long = Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.');
    expect(long).toHaveLength(255);
    expect(isDns1123Subdomain(long.slice(2))).toEqual([]);
    expect(isDns1123Subdomain(long.slice(1))).toEqual(['must be no more than 253 characters']);
  });
});

describe('DNS-1035 label', () => {
  test('must start with a letter', () => {
    expect(isDns1035Label('a1')).toEqual([]);
    expect(isDns1035Label('1a')).toEqual([DNS1035_MSG]);
    expect(isDns1035Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('name validators used for metadata.name and generateName', () => {
  test('a generateName may end in a dash (maskTrailingDash)', () => {
    expect(nameIsDnsSubdomain('web-', true)).toEqual([]);
    expect(nameIsDnsLabel('web-', true)).toEqual([]);
    expect(nameIsDns1035Label('web-', true)).toEqual([]);
    expect(nameIsDnsSubdomain('web-', false)).toEqual([SUBDOMAIN_MSG]);
  });

  test('masking replaces the last two characters, so a lone dash stays invalid', () => {
    expect(nameIsDnsLabel('-', true)).toEqual([LABEL_MSG]);
    // "a.-" masks to "aa": the dot goes too.
    expect(nameIsDnsSubdomain('a.-', true)).toEqual([]);
    expect(nameIsDnsSubdomain('a.-', false)).toEqual([SUBDOMAIN_MSG]);
  });

  test('path segment names', () => {
    expect(nameIsPathSegment('.', false)).toEqual(["may not be '.'"]);
    expect(nameIsPathSegment('..', false)).toEqual(["may not be '..'"]);
    expect(nameIsPathSegment('..', true)).toEqual([]);
    expect(nameIsPathSegment('a/b%c', false)).toEqual(["may not contain '/'", "may not contain '%'"]);
  });
});

describe('qualified names (label and annotation keys)', () => {
  test.each(['a', 'A', 'a.b_c-D', 'example.com/MyName', 'k8s.io/x', `${'a'.repeat(63)}`])('accepts %j', (v) => {
    expect(isQualifiedName(v)).toEqual([]);
  });

  test('bad name part', () => {
    expect(isQualifiedName('-a')).toEqual([QNAME_MSG]);
    expect(isQualifiedName('a'.repeat(64))).toEqual(['name part must be no more than 63 bytes']);
  });

  test('empty name and prefix parts', () => {
    expect(isQualifiedName('')).toEqual(['name part must be non-empty', QNAME_MSG]);
    expect(isQualifiedName('/a')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('a/')).toEqual(['name part must be non-empty', QNAME_MSG]);
  });

  test('prefix must be a DNS subdomain', () => {
    expect(isQualifiedName('Example.com/a')).toEqual([`prefix part ${SUBDOMAIN_MSG}`]);
  });

  test('more than one slash', () => {
    expect(isQualifiedName('a/b/c')).toEqual([
      "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
});

describe('label values', () => {
  test.each(['', 'a', 'A_b.c-1', '12345', 'a'.repeat(63)])('accepts %j', (v) => expect(isValidLabelValue(v)).toEqual([]));

  test.each(['-a', 'a-', 'a b', 'a/b'])('rejects %j', (v) => expect(isValidLabelValue(v)).toEqual([LABEL_VALUE_MSG]));

  test('length limit is 63', () => {
    expect(isValidLabelValue('a'.repeat(64))).toEqual(['must be no more than 63 bytes']);
  });

  test('lengths are UTF-8 bytes, as Go measures them', () => {
    // 32 two-byte characters: 32 UTF-16 units but 64 bytes
    expect(isValidLabelValue('é'.repeat(32))).toEqual(['must be no more than 63 bytes', LABEL_VALUE_MSG]);
    expect(isQualifiedName('é'.repeat(32))[0]).toBe('name part must be no more than 63 bytes');
    expect(isQualifiedName(`${'é'.repeat(127)}/a`)[0]).toBe('prefix part must be no more than 253 bytes');
    // names keep validation.MaxLenError's wording
    expect(isDns1123Label('é'.repeat(32))[0]).toBe('must be no more than 63 characters');
  });
});
