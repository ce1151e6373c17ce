import { setOwn } from '../api/types';
import { DecodeError } from './decode-error';
import { MAX_NESTING_DEPTH } from './json';

/**
 * go-yaml's alias budget (decode.go, allowedAliasRatio), which sigs.k8s.io/yaml inherits: up to
 * 400,000 decoded nodes 99% may come from alias expansion, from 4,000,000 on only 10%, and in
 * between the share falls linearly. Small documents (up to 100 aliased nodes or 1000 nodes) pass.
 */
const RATIO_RANGE_LOW = 400_000;
const RATIO_RANGE_HIGH = 4_000_000;

export function allowedAliasRatio(decoded: number): number {
  if (decoded <= RATIO_RANGE_LOW) return 0.99;
  if (decoded >= RATIO_RANGE_HIGH) return 0.1;
  return 0.99 - (0.89 * (decoded - RATIO_RANGE_LOW)) / (RATIO_RANGE_HIGH - RATIO_RANGE_LOW);
}

const PREFIX = 'error converting YAML to JSON: yaml:';

/**
 * js-yaml resolves an alias to the very object its anchor made, so a small document can name a
 * tree of billions of nodes that every later walk would visit. This copies the tree once, giving
 * each alias its own copy as go-yaml does, and counts as go-yaml's decoder counts: every node
 * reached, and separately those reached through an alias. The walk stops as soon as aliases pass
 * their share, so its cost is bounded by the size of the document. Depth is checked on the way.
 */
export function expandAliases(root: unknown): unknown {
  const seen = new Set<object>();
  const onPath = new Set<object>();
  let decoded = 0;
  let aliased = 0;
  const copy = (value: unknown, depth: number, inAlias: boolean): unknown => {
    decoded++;
    if (inAlias) aliased++;
    if (aliased > 100 && decoded > 1000 && aliased / decoded > allowedAliasRatio(decoded)) {
      throw new DecodeError(`${PREFIX} document contains excessive aliasing`);
    }
    if (typeof value !== 'object' || value === null) return value;
    if (depth >= MAX_NESTING_DEPTH) throw new DecodeError(`error converting YAML to JSON: exceeded max depth of ${MAX_NESTING_DEPTH}`);
    if (onPath.has(value)) throw new DecodeError(`${PREFIX} anchor value contains itself`);
    const alias = inAlias || seen.has(value);
    seen.add(value);
    onPath.add(value);
    let out: unknown;
    if (Array.isArray(value)) {
      out = value.map((item) => copy(item, depth + 1, alias));
    } else {
      const obj: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) setOwn(obj, k, copy(v, depth + 1, alias));
      out = obj;
    }
    onPath.delete(value);
    return out;
  };
  return copy(root, 0, false);
}
