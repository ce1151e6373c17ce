import { isCelError, type CelResult } from '@bufbuild/cel';
import { walk as walkExpr, type ParsedExpr } from '../cel/ast';
import { celEnvironment, CelCompileError, celErrorText, parseExpression, planExpression, type Evaluation } from '../cel/compiler';
import { COST_LIMIT_EXCEEDED, RUNTIME_CEL_COST_BUDGET } from '../cel/cost-limits';
import { celGoErrorText } from '../cel/runtime-errors';
import { constantPatternError, invalidMatchesLiteral } from '../cel/regex-literals';
import { field, fieldErrorMessage, GoSyntax, goQuote, type FieldError, type FieldErrorList } from '../api/field-errors';
import { optionalNone, optionalOf } from '../cel/library/optional';
import {
  mapIsCorrelatable,
  NO_RATCHETING,
  oldListItem,
  propertySchema,
  ratchetIndex,
  ratchetingRoot,
  ratchetKey,
  unchanged,
  type Ratcheting,
} from './correlation';
import { formattedCelValue } from './cel-formats';
import { goFormatValue } from '../patch/go-value-format';
import { celPropertyName } from './cel-escaping';
import { checkRule } from './cel-rule-checker';
import { listAndMapTypeErrors } from './list-map-types';
import { normalizedFieldPath } from './cel-field-path';
import type { JSONSchemaProps } from './json-schema-props';

/**
 * The validation rules of a CRD's schema (`x-kubernetes-validations`), evaluated with CEL as
 * apiextensions-apiserver does: `self` is the value at the rule's node, `oldSelf` its value before
 * an update (rules that read it are transition rules, run only when there is an old value).
 * Values are typed by the schema: integers are CEL ints, objects maps. Each evaluation is metered
 * (cel/cost.ts) within kube's per-call limit, and one object's rules within kube's runtime budget.
 * A rule whose evaluation fails refuses the object, with kube's message for the failure.
 */

type ValidationRule = NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number];

/** An expression that runs within a cost limit: its result, and its cost including what it costs outside loops. */
type Program = (ctx: Record<string, unknown>) => Evaluation;

interface CompiledRule {
  rule: ValidationRule;
  transition: boolean;
  /** NormalizedRuleFieldPath: where under the node its failures are reported, if its fieldPath is valid. */
  fieldPath: string | null;
  check: Program;
  message: Program | null;
}

// The base environment alone: apiextensions uses apiserver/pkg/cel/environment's base set, as admission does.
const env = celEnvironment();

function compile(parsed: ParsedExpr): Program {
  const program = planExpression(env, parsed);
  return (ctx) => program.run(ctx);
}

/** compileRule's UsesOldSelf: the checked expression refers to `oldSelf` (a comprehension variable of that name included, as in cel-go's reference map). */
const usesOldSelf = (parsed: ParsedExpr): boolean =>
  [...walkExpr(parsed.expr)].some((e) => e.exprKind.case === 'identExpr' && e.exprKind.value.name === 'oldSelf');

/** ruleErrorString: how kube names a rule in its cost errors. */
const ruleName = (rule: ValidationRule): string => rule.message?.trim() || rule.rule.trim();

/** What is left of the runtime cost budget of one custom resource's rules; below zero, no rule runs any more. */
interface Budget {
  remaining: number;
}

/**
 * The rule as kube's CRD validation shows it: the internal ValidationRule, a struct without json
 * tags, as field.Error marshals it (its Go field names; an unset pointer is null).
 */
function ruleValue(r: ValidationRule): Record<string, unknown> {
  return {
    Rule: r.rule,
    Message: r.message ?? '',
    MessageExpression: r.messageExpression ?? '',
    Reason: r.reason ?? null,
    FieldPath: r.fieldPath ?? '',
    OptionalOldSelf: r.optionalOldSelf ?? null,
  };
}

const declaredFunction = (name: string): boolean => env.funcs.find(name) !== undefined;

/** compileRule's outcome for a rule (`want` bool) or a messageExpression (`want` string). */
interface Compilation {
  /** The error in kube's words, or null. */
  error: string | null;
  /** UsesOldSelf, which kube sets once the expression checked as the type wanted. */
  usesOldSelf: boolean;
}

function compileExpression(source: string, s: JSONSchemaProps, root: boolean, optionalOldSelf: boolean, want: 'bool' | 'string'): Compilation {
  const failed = want === 'bool' ? 'compilation failed: ' : 'messageExpression compilation failed: ';
  const refused = (error: string): Compilation => ({ error, usesOldSelf: false });
  let parsed: ParsedExpr;
  try {
    parsed = parseExpression(source);
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    return refused(failed + err.message);
  }
  const positions = (parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  const { issue, resultType } = checkRule(parsed.expr, positions, s, root, declaredFunction, optionalOldSelf);
  if (issue !== null) return refused(failed + celErrorText(source, issue.offset, issue.message));
  const badPattern = invalidMatchesLiteral(parsed.expr);
  if (badPattern !== null) return refused(failed + celErrorText(source, positions[String(badPattern)] ?? 0, 'invalid matches argument'));
  // a checked type other than the one wanted (dyn included) is refused after compiling
  if (resultType !== null && resultType !== want)
    return refused(want === 'bool' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string');
  const programError = constantPatternError(parsed.expr);
  return {
    error: programError === null ? null : `${want === 'bool' ? 'program' : 'messageExpression'} instantiation failed: ${programError}`,
    usesOldSelf: usesOldSelf(parsed),
  };
}

/** The reasons a rule may give its failures (apiextensions' supportedValidationReason, sorted as its List()). */
const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** Line breaks as CEL's grammar has them (kube's hasNewlines). */
const hasNewlines = (text: string): boolean => /[\n\r]/.test(text);

type ValidationRuleProps = NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number];

/** ValidateCustomResourceDefinitionOpenAPISchema's checks of one rule's own fields (its SchemaErrors), before anything is compiled. */
function ruleSchemaErrors(r: ValidationRuleProps, s: JSONSchemaProps, rulePath: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const rule = (r.rule ?? '').trim();
  const message = r.message ?? '';
  const trimmedMessage = message.trim();
  if (!rule) errs.push(field.required(`${rulePath}.rule`, 'rule is not specified'));
  else if (message && !trimmedMessage) errs.push(field.invalid(`${rulePath}.message`, message, 'must be non-empty if specified'));
  else if (hasNewlines(trimmedMessage)) errs.push(field.invalid(`${rulePath}.message`, message, 'must not contain line breaks'));
  else if (hasNewlines(rule) && !trimmedMessage) errs.push(field.required(`${rulePath}.message`, 'message must be specified if rule contains line breaks'));
  if (r.messageExpression && !r.messageExpression.trim())
    errs.push(field.required(`${rulePath}.messageExpression`, 'messageExpression must be non-empty if specified'));
  if (r.reason !== undefined && !SUPPORTED_REASONS.includes(r.reason)) errs.push(field.notSupported(`${rulePath}.reason`, r.reason, SUPPORTED_REASONS));
  const fieldPath = r.fieldPath ?? '';
  if (fieldPath && !fieldPath.trim()) errs.push(field.invalid(`${rulePath}.fieldPath`, fieldPath, 'must be non-empty if specified'));
  if (hasNewlines(fieldPath)) errs.push(field.invalid(`${rulePath}.fieldPath`, fieldPath, 'must not contain line breaks'));
  if (fieldPath && normalizedFieldPath(fieldPath, s) === null) errs.push(field.invalid(`${rulePath}.fieldPath`, fieldPath, 'must be a valid path'));
  return errs;
}

/**
 * The CELErrors of one rule whose level has no SchemaErrors: its compile error or its
 * messageExpression's, then its use of oldSelf where old values cannot be correlated (below a
 * list that is not `listType: map`), or an `optionalOldSelf` it does not need.
 */
function ruleCelErrors(r: ValidationRule, s: JSONSchemaProps, root: boolean, rulePath: string, uncorrelatable: string | null): FieldErrorList {
  const errs: FieldErrorList = [];
  const optionalOldSelf = r.optionalOldSelf === true;
  const compiled = compileExpression(r.rule, s, root, optionalOldSelf, 'bool');
  if (compiled.error !== null) errs.push(field.invalid(`${rulePath}.rule`, ruleValue(r), compiled.error));
  // compileRule compiles the messageExpression only once the rule compiled
  else if (r.messageExpression?.trim()) {
    const message = compileExpression(r.messageExpression, s, root, optionalOldSelf, 'string');
    if (message.error !== null) errs.push(field.invalid(`${rulePath}.messageExpression`, ruleValue(r), message.error));
  }
  if (compiled.usesOldSelf) {
    if (uncorrelatable !== null)
      errs.push(field.invalid(`${rulePath}.rule`, r.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
  } else if (r.optionalOldSelf !== undefined) {
    errs.push(field.invalid(`${rulePath}.optionalOldSelf`, r.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
  }
  return errs;
}

/** Errors of a schema and the nodes below it, kept apart as kube keeps them (OpenAPISchemaErrorList). */
interface SchemaErrorList {
  schema: FieldErrorList;
  cel: FieldErrorList;
}

/**
 * What kube refuses in a schema's rules when the CRD is written: their own fields, then what its
 * compiler finds (syntax, undeclared names, undefined fields, type mismatches, patterns RE2
 * rejects, oldSelf misuse). All schema errors come before all CEL errors, a node's children
 * before it, and a node whose subtree has schema errors is not compiled.
 */
export function celRuleErrors(schema: JSONSchemaProps, path: string): FieldErrorList {
  // uncorrelatable: the highest node above whose old values are not correlated (withForbidOldSelfValidations)
  const visit = (s: JSONSchemaProps, at: string, uncorrelatable: string | null): SchemaErrorList => {
    const errs: SchemaErrorList = { schema: [], cel: [] };
    const add = (child: SchemaErrorList): void => {
      errs.schema.push(...child.schema);
      errs.cel.push(...child.cel);
    };
    if (typeof s.additionalProperties === 'object') add(visit(s.additionalProperties, `${at}.additionalProperties`, uncorrelatable));
    const propertiesUncorrelatable = uncorrelatable ?? (mapIsCorrelatable(s) ? null : at);
    for (const [name, child] of Object.entries(s.properties ?? {})) add(visit(child, `${at}.properties[${name}]`, propertiesUncorrelatable));
    if (s.items) add(visit(s.items, `${at}.items`, uncorrelatable ?? (s['x-kubernetes-list-type'] === 'map' ? null : at)));
    const rules = s['x-kubernetes-validations'] ?? [];
    const rulePath = (i: number): string => `${at}.x-kubernetes-validations[${i}]`;
    errs.schema.push(...listAndMapTypeErrors(s, at));
    errs.schema.push(...rules.flatMap((r, i) => ruleSchemaErrors(r, s, rulePath(i))));
    // a broken schema at this level or below gives no actionable CEL errors
    if (errs.schema.length === 0) errs.cel.push(...rules.flatMap((r, i) => ruleCelErrors(r, s, s === schema, rulePath(i), uncorrelatable)));
    return errs;
  };
  const errs = visit(schema, path, null);
  return [...errs.schema, ...errs.cel];
}

/** A value as CEL sees it under its schema: objects as maps, integers as ints, formatted strings typed (cel-formats.ts). */
function celValue(value: unknown, s: JSONSchemaProps | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => celValue(v, s?.items));
  if (typeof value === 'object' && value !== null) {
    const additional = typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined;
    // declared properties under their CEL names (`__namespace__`), a map's keys as they are
    return new Map(
      Object.entries(value).map(([k, v]) => (s?.properties?.[k] ? [celPropertyName(k), celValue(v, s.properties[k])] : [k, celValue(v, additional)])),
    );
  }
  if (typeof value === 'number' && Number.isInteger(value) && (s?.type === 'integer' || s?.['x-kubernetes-int-or-string'])) return BigInt(value);
  if (typeof value === 'string' && s?.type === 'string') return formattedCelValue(s.format, value);
  return value;
}

/** The schema's type, which kube shows as the value of a rule whose evaluation fails ("object", "string"; "" for int-or-string). */
const schemaType = (s: JSONSchemaProps): string => s.type ?? '';

/** validateExpressions: the error of a rule whose evaluation failed, in kube's words. */
function evaluationFailure(rule: ValidationRule, at: string, s: JSONSchemaProps, message: string): FieldError {
  const err = celGoErrorText(message);
  if (err.startsWith('no such overload'))
    return field.invalid(
      at,
      schemaType(s),
      `'${err}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleName(rule)}`,
    );
  return field.invalid(at, schemaType(s), `${err} evaluating rule: ${ruleName(rule)}`);
}

/** currentFldPath: a rule's failures are reported at its valid fieldPath under the node (field.Path's Child of the normalized path), else at the node. */
const failurePath = (compiled: CompiledRule, at: string): string =>
  compiled.fieldPath === null ? at || '<nil>' : at ? `${at}.${compiled.fieldPath}` : compiled.fieldPath;

/**
 * validateExpressions' value of a failed rule: a scalar as Go's %v prints the decoded one (whole
 * numbers as int64, others as float64), an object's or a list's left out (field.OmitValueType).
 */
function failedValue(value: unknown, s: JSONSchemaProps): { value?: unknown } {
  if (s.type === 'object' || s.type === 'array') return {};
  return { value: typeof value === 'number' && !Number.isInteger(value) ? new GoSyntax(goFormatValue(value)) : value };
}

/** fieldErrorForReason */
function failure(rule: ValidationRule, path: string, s: JSONSchemaProps, value: unknown, message: string): FieldError {
  const shown = failedValue(value, s);
  switch (rule.reason) {
    case 'FieldValueRequired':
      return field.required(path, message);
    case 'FieldValueForbidden':
      return field.forbidden(path, message);
    case 'FieldValueDuplicate':
      return { type: 'FieldValueDuplicate', field: path, ...shown };
    default:
      return { type: 'FieldValueInvalid', field: path, ...shown, detail: message };
  }
}

interface RuleNode {
  rules: CompiledRule[];
  schema: JSONSchemaProps;
}

/** MaxEvaluatedMessageExpressionSizeBytes: the longest message a messageExpression may give. */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

/**
 * evalMessageExpression and ruleMessageOrDefault: the messageExpression's result, trimmed, unless
 * it is no string, empty, longer than 5 KiB or has line breaks; else the rule's message, or
 * `failed rule: <rule>`.
 */
export function failureMessage(rule: ValidationRule, custom: CelResult | undefined): string {
  const text = typeof custom === 'string' ? custom.trim() : '';
  if (text && Buffer.byteLength(text) <= MAX_MESSAGE_EXPRESSION_BYTES && !text.includes('\n')) return text;
  return rule.message ? rule.message.trim() : `failed rule: ${ruleName(rule)}`;
}

/** The compiled rules of a custom resource's schema, evaluated against objects (and their old versions). */
export class CelRules {
  private readonly nodes = new Map<JSONSchemaProps, RuleNode>();

  constructor(private readonly schema: JSONSchemaProps) {
    const visit = (s: JSONSchemaProps): void => {
      const rules = (s['x-kubernetes-validations'] ?? []).flatMap((rule): CompiledRule[] => {
        try {
          const parsed = parseExpression(rule.rule);
          return [
            {
              rule,
              transition: usesOldSelf(parsed),
              fieldPath: rule.fieldPath ? normalizedFieldPath(rule.fieldPath, s) : null,
              check: compile(parsed),
              message: rule.messageExpression ? compile(parseExpression(rule.messageExpression)) : null,
            },
          ];
        } catch {
          return [];
        }
      });
      if (rules.length > 0) this.nodes.set(s, { rules, schema: s });
      for (const child of Object.values(s.properties ?? {})) visit(child);
      if (s.items) visit(s.items);
      if (typeof s.additionalProperties === 'object') visit(s.additionalProperties);
    };
    visit(schema);
  }

  get empty(): boolean {
    return this.nodes.size === 0;
  }

  /** The rules' errors on create: transition rules run only with `optionalOldSelf`, their oldSelf none. */
  validate(obj: Record<string, unknown>): FieldErrorList {
    return this.walk(obj, undefined, this.schema, '', NO_RATCHETING, { remaining: RUNTIME_CEL_COST_BUDGET }, () => {});
  }

  /**
   * The rules' errors on update, one budget for them all: transition rules run where the old
   * object has a correlated value (or with `optionalOldSelf`); the errors of other rules on an
   * unchanged node are ratcheted, given to `warn` instead (validation ratcheting, GA in 1.33).
   */
  validateUpdate(obj: Record<string, unknown>, old: Record<string, unknown>, warn: (text: string) => void): FieldErrorList {
    return this.walk(obj, old, this.schema, '', ratchetingRoot(obj, old, this.schema), { remaining: RUNTIME_CEL_COST_BUDGET }, warn);
  }

  /** Validator.validate, validateMap and validateArray: old values by name (not in atomic maps) and by list-map keys. */
  private walk(
    value: unknown,
    old: unknown,
    s: JSONSchemaProps,
    at: string,
    ratchet: Ratcheting,
    budget: Budget,
    warn: (text: string) => void,
  ): FieldErrorList {
    if (value === undefined || value === null || budget.remaining < 0) return [];
    const errs: FieldErrorList = [];
    const node = this.nodes.get(s);
    if (node) errs.push(...this.evaluate(node, value, old ?? undefined, at, ratchet, budget, warn));
    if (Array.isArray(value) && s.items) {
      const items = s.items;
      value.forEach((item, i) => errs.push(...this.walk(item, oldListItem(s, old, item), items, `${at}[${i}]`, ratchetIndex(ratchet, i), budget, warn)));
    } else if (typeof value === 'object') {
      const correlatable = mapIsCorrelatable(s);
      const oldObject = correlatable && typeof old === 'object' && old !== null && !Array.isArray(old) ? (old as Record<string, unknown>) : undefined;
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        const childSchema = propertySchema(s, key);
        if (!childSchema) continue;
        const childPath = s.properties?.[key] ? (at ? `${at}.${key}` : key) : `${at}[${key}]`;
        errs.push(...this.walk(child, oldObject?.[key], childSchema, childPath, ratchetKey(ratchet, key), budget, warn));
      }
    }
    return errs;
  }

  /** validateExpressions: each rule within the per-call limit and what is left of the budget, which a rule past either ends. */
  private evaluate(
    node: RuleNode,
    value: unknown,
    old: unknown,
    at: string,
    ratchet: Ratcheting,
    budget: Budget,
    warn: (text: string) => void,
  ): FieldErrorList {
    const errs: FieldErrorList = [];
    // the root's path is a nil field.Path
    const here = at || '<nil>';
    const stop = (message: string, path = here): FieldErrorList => {
      budget.remaining = -1;
      return [...errs, field.invalid(path, schemaType(node.schema), message)];
    };
    const outOfBudget = 'no further validation rules will be run';
    if (budget.remaining <= 0) return stop(`validation failed due to running out of cost budget, ${outOfBudget}`);
    const self = celValue(value, node.schema);
    const oldSelf = old === undefined ? undefined : celValue(old, node.schema);
    const activation = { self, ...(oldSelf === undefined ? {} : { oldSelf }) };
    const optionalActivation = { self, oldSelf: oldSelf === undefined ? optionalNone() : optionalOf(oldSelf) };
    for (const compiled of node.rules) {
      const optional = compiled.rule.optionalOldSelf === true;
      if (compiled.transition && old === undefined && !optional) continue;
      const { result, cost, exceeded } = compiled.check(optional ? optionalActivation : activation);
      if (cost > budget.remaining) return stop(`validation failed due to running out of cost budget, ${outOfBudget}`);
      budget.remaining -= cost;
      if (exceeded) return stop(`'${COST_LIMIT_EXCEEDED}': ${outOfBudget} due to call cost exceeds limit for rule: ${ruleName(compiled.rule)}`);
      if (result === true) continue;
      if (isCelError(result)) {
        errs.push(evaluationFailure(compiled.rule, here, node.schema, result.message));
        continue;
      }
      const add = (e: FieldError): void => {
        if (!compiled.transition && unchanged(ratchet)) warn(fieldErrorMessage(e));
        else errs.push(e);
      };
      const path = failurePath(compiled, at);
      let custom: CelResult | undefined;
      if (compiled.message) {
        const evaluation = compiled.message(activation);
        if (evaluation.cost > budget.remaining) return stop(`messageExpression evaluation failed due to running out of cost budget, ${outOfBudget}`, path);
        budget.remaining -= evaluation.cost;
        if (evaluation.exceeded)
          return stop(`${outOfBudget} due to call cost exceeds limit for messageExpression: ${goQuote(compiled.rule.messageExpression!)}`, path);
        custom = evaluation.result;
      }
      add(failure(compiled.rule, path, node.schema, value, failureMessage(compiled.rule, custom)));
    }
    return errs;
  }
}
