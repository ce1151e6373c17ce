import { objectsIn, stringOf as str } from '../../api/json-read';
import type { KubeObject } from '../../api/types';
import { compileExpression, failingExpression, type CompiledExpression } from '../policy/cel';

/** What a webhook's matchConditions may read (the webhook plugin's CEL environment). */
export const WEBHOOK_CONDITION_VARIABLES = ['object', 'oldObject', 'request', 'authorizer'] as const;

type Compiled = { name: string; expression: CompiledExpression }[];

/** Compiled conditions by configuration uid, resourceVersion and webhook name: each is compiled once. */
const cache = new Map<string, Compiled>();
const CACHE_LIMIT = 1000;

/**
 * A webhook's compiled matchConditions. Validation refuses expressions that do not compile; one
 * stored before that (by an older server) is a condition that errs.
 */
export function compiledMatchConditions(config: KubeObject, hook: Record<string, unknown>): Compiled {
  const conditions = objectsIn(hook.matchConditions);
  if (conditions.length === 0) return [];
  const key = `${config.metadata.uid ?? ''}/${config.metadata.resourceVersion ?? ''}/${str(hook.name)}`;
  let compiled = cache.get(key);
  if (!compiled) {
    compiled = conditions.map((c) => ({ name: str(c.name), expression: compileOrFail(str(c.expression)) }));
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, compiled);
  }
  return compiled;
}

function compileOrFail(source: string): CompiledExpression {
  try {
    return compileExpression(source, WEBHOOK_CONDITION_VARIABLES);
  } catch (err) {
    return failingExpression(source, (err as Error).message);
  }
}
