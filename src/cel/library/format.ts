import { CelScalar } from '@bufbuild/cel';
import { isQualifiedName, isValidLabelValue, nameIsDns1035Label, nameIsDnsLabel, nameIsDnsSubdomain } from '../../api/name-validation';
import { matchesFormat } from '../../schema/string-formats';
import { parseRequestURI } from './go-url';
import { OPTIONAL, optionalNone, optionalOf } from './optional';
import { field, func, typedMethod, typedValue, type Overload } from './typed-values';

/**
 * Kubernetes' format library (apiserver/pkg/cel/library/format.go, enabled from 1.31):
 * `format.named(name)` (an optional format), `format.<name>()`, and `<format>.validate(s)`, which
 * is `optional.none()` for a valid string and otherwise the optional list of kube's messages.
 */

const { STRING } = CelScalar;
const KIND = 'format';

const check = (format: string, message: string) => (s: string) => (matchesFormat(format, s) ? [] : [message]);

/** library.ConstantFormats: each name's validation, with kube's messages. */
const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label: (s) => nameIsDnsLabel(s, false),
  dns1123Subdomain: (s) => nameIsDnsSubdomain(s, false),
  dns1035Label: (s) => nameIsDns1035Label(s, false),
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: (s) => nameIsDnsLabel(s, true),
  dns1123SubdomainPrefix: (s) => nameIsDnsSubdomain(s, true),
  dns1035LabelPrefix: (s) => nameIsDns1035Label(s, true),
  labelValue: isValidLabelValue,
  uri: (s) => {
    try {
      parseRequestURI(s);
      return [];
    } catch (err) {
      return [(err as Error).message];
    }
  },
  uuid: check('uuid', 'does not match the UUID format'),
  byte: check('byte', 'invalid base64'),
  date: check('date', 'invalid date'),
  datetime: check('datetime', 'invalid datetime'),
};

const formatValue = (name: string) => typedValue(KIND, { name });

export const formatLibrary: Overload[] = [
  func('format.named', [STRING], OPTIONAL, (name: string) => (Object.hasOwn(FORMATS, name) ? optionalOf(formatValue(name)) : optionalNone())),
  ...Object.keys(FORMATS).map((name) => func(`format.${name}`, [], KIND, () => formatValue(name))),
  typedMethod(KIND, 'validate', [STRING], OPTIONAL, (format, s: string) => {
    const errors = FORMATS[field<string>(format, 'name')](s);
    return errors.length === 0 ? optionalNone() : optionalOf(errors);
  }),
];
