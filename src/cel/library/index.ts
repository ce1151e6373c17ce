import { cidrLibrary } from './cidr';
import { extListsLibrary } from './ext-lists';
import { comprehensionsLibrary } from './comprehensions';
import { formatLibrary } from './format';
import { ipLibrary } from './ip';
import { listsLibrary } from './lists';
import { optionalLibrary, optionalSyntaxLibrary } from './optional';
import { quantityLibrary } from './quantity';
import { regexLibrary } from './regex';
import { semverLibrary } from './semver';
import { setsLibrary } from './sets';
import { stringsLibrary } from './strings';
import { combineOverloads } from './typed-values';
import { urlLibrary } from './urls';

/**
 * Kubernetes' CEL libraries of the 1.36 base environment (apiserver/pkg/cel/environment/base.go)
 * that kapi's evaluator can express (cel-go's lists extension among them), optional values (with the functions the optional syntax is
 * planned as) and the functions of two-variable comprehensions.
 */
const overloads = [
  ...listsLibrary,
  ...extListsLibrary,
  ...regexLibrary,
  ...urlLibrary,
  ...quantityLibrary,
  ...ipLibrary,
  ...cidrLibrary,
  ...semverLibrary,
  ...setsLibrary,
  ...optionalLibrary,
  ...optionalSyntaxLibrary,
  ...comprehensionsLibrary,
  ...formatLibrary,
  ...stringsLibrary,
];

export const kubernetesLibraries = combineOverloads(overloads);

/** Functions named in a namespace (`ip` in `ip.isCanonical(s)` is no variable), with the string extension's `strings.quote`. */
export const QUALIFIED_LIBRARY_FUNCTIONS = [...new Set(overloads.filter((o) => o.name.includes('.')).map((o) => o.name)), 'strings.quote'];
