import { StatusError } from './errors';
import { fromLabelSelectorStruct, labelSelectorString, matchesLabels, parseLabelSelector } from './label-selector';

const selects = (selector: string, labels: Record<string, string>): boolean => matchesLabels(parseLabelSelector(selector), labels);

/** The 400 message a bad selector produces. */
function parseError(selector: string): string {
  try {
    parseLabelSelector(selector);
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
    return (err as StatusError).message;
  }
  throw new Error(`${JSON.stringify(selector)} parsed`);
}

describe('parsing', () => {
  test('an empty selector has no requirements', () => {
    expect(parseLabelSelector('')).toEqual([]);
    expect(parseLabelSelector('  ')).toEqual([]);
  });

  test('requirements come out sorted by key, with sorted, unique values', () => {
    expect(parseLabelSelector('z=1,a in (y,x,y),!m,k')).toEqual([
      { key: 'a', operator: 'In', values: ['x', 'y'] },
      { key: 'k', operator: 'Exists', values: [] },
      { key: 'm', operator: 'DoesNotExist', values: [] },
      { key: 'z', operator: 'Equals', values: ['1'] },
    ]);
  });

  test('whitespace around tokens is allowed', () => {
    expect(parseLabelSelector(' a = b , c notin ( d , e ) ')).toEqual([
      { key: 'a', operator: 'Equals', values: ['b'] },
      { key: 'c', operator: 'NotIn', values: ['d', 'e'] },
    ]);
  });

  test('empty values: a=, x in (), x in (,a)', () => {
    expect(parseLabelSelector('a=')[0].values).toEqual(['']);
    expect(parseLabelSelector('x in ()')[0].values).toEqual(['']);
    expect(parseLabelSelector('x in (,a)')[0].values).toEqual(['', 'a']);
  });

  test('"in" and "notin" are values inside a value set', () => {
    expect(parseLabelSelector('x in (in,notin)')[0].values).toEqual(['in', 'notin']);
  });
});

describe('matching', () => {
  const labels = { app: 'web', tier: 'frontend', n: '10' };

  test.each([
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db)', false],
    ['missing in (x)', false],
    ['app notin (db)', true],
    ['app notin (web)', false],
    ['missing notin (x)', true],
    ['tier', true],
    ['missing', false],
    ['!missing', true],
    ['!tier', false],
    ['n>9', true],
    ['n>10', false],
    ['n<11', true],
    ['n<10', false],
    ['app>1', false],
    ['missing>1', false],
    ['app=web,tier=backend', false],
    ['app=web,tier=frontend', true],
  ])('%s -> %s', (selector, expected) => expect(selects(selector, labels)).toBe(expected));

  test('Gt and Lt compare as 64-bit integers, beyond double precision', () => {
    expect(selects('n>9007199254740992', { n: '9007199254740993' })).toBe(true);
    expect(selects('n<9223372036854775807', { n: '007' })).toBe(true);
    expect(selects('n<5', { n: '9223372036854775808' })).toBe(false); // overflows int64: no match
  });
});

describe('invalid selectors are 400 BadRequest with labels.Parse messages', () => {
  test('syntax errors', () => {
    expect(parseError('a b')).toBe("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
    expect(parseError('a=b c')).toBe("found 'c', expected: ',' or 'end of string'");
    expect(parseError('a,')).toBe("found '', expected: identifier after ','");
    expect(parseError(',a')).toBe("found ',', expected: !, identifier, or 'end of string'");
    expect(parseError('a=b=c')).toBe("found '=', expected: ',' or 'end of string'");
    expect(parseError('x in (a')).toBe("unable to parse requirement: found '', expected: ',' or ')'");
    expect(parseError('x in a')).toBe("unable to parse requirement: found 'a' expected: '('");
    expect(parseError('!=a')).toBe("found '!=', expected: !, identifier, or 'end of string'");
    expect(parseError('!!a')).toBe("unable to parse requirement: found '!', expected: identifier");
  });

  test('an invalid key', () => {
    expect(parseError('a/b/c=d')).toBe(
      "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
  });

  test('an invalid value names its index in the sorted values and the key', () => {
    expect(parseError('app in (web, b@d)')).toBe(
      "unable to parse requirement: values[0][app]: Invalid value: \"b@d\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
    expect(parseError('app in (a, z@)')).toMatch(/^unable to parse requirement: values\[1\]\[app\]: Invalid value: "z@"/);
  });

  test('Gt and Lt need an integer that is also a label value', () => {
    expect(parseError('n>x')).toBe("unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer");
    expect(parseError('n>-5')).toMatch(/^unable to parse requirement: values\[0\]\[n\]: Invalid value: "-5": a valid label must be/);
    expect(parseError('n>x_')).toMatch(
      /^unable to parse requirement: \[values\[0\]: Invalid value: "x_": for 'Gt', 'Lt' operators, the value must be an integer, values\[0\]\[n\]: Invalid value: "x_"/,
    );
  });
});

describe('metav1.LabelSelector structs', () => {
  test('matchLabels and matchExpressions', () => {
    const sel = fromLabelSelectorStruct({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['a', 'b'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    expect(matchesLabels(sel, { app: 'web', tier: 'b' })).toBe(true);
    expect(matchesLabels(sel, { app: 'web', tier: 'c' })).toBe(false);
    expect(matchesLabels(sel, { app: 'web', tier: 'a', legacy: '' })).toBe(false);
  });

  test('an operator name that is an Object.prototype key is not an operator', () => {
    expect(fromLabelSelectorStruct({ matchExpressions: [{ key: 'a', operator: 'constructor' }] })).toEqual([]);
  });
});

describe('labelSelectorString: LabelSelectorAsSelector(sel).String(), as a Scale shows it', () => {
  test('an absent or empty selector is the empty string', () => {
    expect(labelSelectorString(undefined)).toBe('');
    expect(labelSelectorString(null)).toBe('');
    expect(labelSelectorString({})).toBe('');
    expect(labelSelectorString({ matchLabels: {}, matchExpressions: [] })).toBe('');
  });

  test('matchLabels as k=v, sorted by key', () => {
    expect(labelSelectorString({ matchLabels: { tier: 'front', app: 'web', 'example.com/role': 'x' } })).toBe('app=web,example.com/role=x,tier=front');
  });

  test('each operator as kube renders it, values sorted, everything sorted by key', () => {
    expect(
      labelSelectorString({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'zone', operator: 'NotIn', values: ['west', 'east'] },
          { key: 'tier', operator: 'In', values: ['front', 'back', 'edge'] },
          { key: 'legacy', operator: 'DoesNotExist' },
          { key: 'canary', operator: 'Exists', values: [] },
          { key: 'single', operator: 'In', values: ['one'] },
        ],
      }),
    ).toBe('app=web,canary,!legacy,single in (one),tier in (back,edge,front),zone notin (east,west)');
  });

  test('requirements on one key keep their order: matchLabels first, then matchExpressions as given', () => {
    expect(
      labelSelectorString({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'app', operator: 'NotIn', values: ['db'] },
          { key: 'app', operator: 'Exists' },
        ],
      }),
    ).toBe('app=web,app notin (db),app');
  });

  test('what it prints parses back to the same requirements', () => {
    const sel = {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a'] },
        { key: 'old', operator: 'DoesNotExist' },
      ],
    };
    expect(parseLabelSelector(labelSelectorString(sel))).toEqual(
      [...fromLabelSelectorStruct(sel)].sort((a, b) => a.key.localeCompare(b.key)).map((r) => ({ ...r, values: [...r.values].sort() })),
    );
  });

  test('a selector kube-apiserver could not convert is a 400 with its message', () => {
    const message = (sel: Parameters<typeof labelSelectorString>[0]): string => {
      try {
        labelSelectorString(sel);
      } catch (err) {
        expect((err as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
        return (err as StatusError).message;
      }
      throw new Error('converted');
    };
    expect(message({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toBe('"Gt" is not a valid label selector operator');
    expect(message({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toBe(
      "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    );
    expect(message({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })).toBe(
      'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
    );
    expect(message({ matchLabels: { 'a b': 'c' } })).toMatch(/^key: Invalid value: "a b": name part must consist of/);
    expect(message({ matchLabels: { a: 'b c' } })).toMatch(/^values\[0\]\[a\]: Invalid value: "b c": a valid label must be/);
  });
});
