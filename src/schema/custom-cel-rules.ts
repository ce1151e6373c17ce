import { isCelError, type CelResult } from '@bufbuild/cel';
import type { ParsedExpr } from '../cel/ast';
import { celEnvironment, CelCompileError, celErrorText, parseExpression, planExpression, type Evaluation } from '../cel/compiler';
import { COST_LIMIT_EXCEEDED, RUNTIME_CEL_COST_BUDGET } from '../cel/cost-limits';
import { celGoErrorText } from '../cel/runtime-errors';
import { constantPatternError, invalidMatchesLiteral } from '../cel/regex-literals';
import { field, fieldErrorMessage, GoSyntax, goQuote, type FieldError, type FieldErrorList } from '../api/field-errors';
import { optionalNone, optionalOf } from '../cel/library/optional';
import { NO_RATCHETING, oldListItem, propertySchema, ratchetIndex, ratchetingRoot, ratchetKey, unchanged, type Ratcheting } from './correlation';
import { formattedCelValue } from './cel-formats';
import { celPropertyName } from './cel-escaping';
import { checkRule } from './cel-rule-checker';
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
  check: Program;
  message: Program | null;
}

// The base environment alone: apiextensions uses apiserver/pkg/cel/environment's base set, as admission does.
const env = celEnvironment();

function compile(source: string): Program {
  const program = planExpression(env, parseExpression(source));
  return (ctx) => program.run(ctx);
}

/** ruleErrorString: how kube names a rule in its cost errors. */
const ruleName = (rule: ValidationRule): string => rule.message?.trim() || rule.rule.trim();

/** What is left of the runtime cost budget of one custom resource's rules; below zero, no rule runs any more. */
interface Budget {
  remaining: number;
}

/**
 * The rule as kube's CRD validation shows it, Go's %#v of the internal ValidationRule (a set
 * pointer prints as an address, which differs from run to run in kube).
 */
function ruleValue(r: ValidationRule): GoSyntax {
  const pointer = (type: string, set: boolean) => `(*${type})(${set ? '0xc000000000' : 'nil'})`;
  return new GoSyntax(
    `apiextensions.ValidationRule{Rule:${goQuote(r.rule)}, Message:${goQuote(r.message ?? '')}, MessageExpression:${goQuote(r.messageExpression ?? '')}, ` +
      `Reason:${pointer('apiextensions.FieldValueErrorReason', r.reason !== undefined)}, FieldPath:${goQuote(r.fieldPath ?? '')}, ` +
      `OptionalOldSelf:${pointer('bool', r.optionalOldSelf !== undefined)}}`,
  );
}

const declaredFunction = (name: string): boolean => env.funcs.find(name) !== undefined;

/** compileRule's error for a rule (`want` bool) or a messageExpression (`want` string), in kube's words, or null. */
function ruleCompileError(source: string, s: JSONSchemaProps, root: boolean, optionalOldSelf: boolean, want: 'bool' | 'string'): string | null {
  const failed = want === 'bool' ? 'compilation failed: ' : 'messageExpression compilation failed: ';
  let parsed: ParsedExpr;
  try {
    parsed = parseExpression(source);
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    return failed + err.message;
  }
  const positions = (parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  const { issue, resultType } = checkRule(parsed.expr, positions, s, root, declaredFunction, optionalOldSelf);
  if (issue !== null) return failed + celErrorText(source, issue.offset, issue.message);
  const badPattern = invalidMatchesLiteral(parsed.expr);
  if (badPattern !== null) return failed + celErrorText(source, positions[String(badPattern)] ?? 0, 'invalid matches argument');
  // a checked type other than the one wanted (dyn included) is refused after compiling
  if (resultType !== null && resultType !== want)
    return want === 'bool' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string';
  const programError = constantPatternError(parsed.expr);
  if (programError === null) return null;
  return `${want === 'bool' ? 'program' : 'messageExpression'} instantiation failed: ${programError}`;
}

/** The reasons a rule may give its failures (apiextensions' supportedValidationReason, sorted as its List()). */
const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** Line breaks as CEL's grammar has them (kube's hasNewlines). */
const hasNewlines = (text: string): boolean => /[\n\r]/.test(text);

type ValidationRuleProps = NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number];

/** ValidateCustomResourceDefinitionOpenAPISchema's checks of one rule's own fields, before anything is compiled. */
function ruleSchemaErrors(r: ValidationRuleProps, rulePath: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const rule = (r.rule ?? '').trim();
  const message = r.message ?? '';
  const trimmedMessage = message.trim();
  if (!rule) errs.push(field.required(`${rulePath}.rule`, 'rule is not specified'));
  else if (message && !trimmedMessage) errs.push(field.invalid(`${rulePath}.message`, message, 'message must be non-empty if specified'));
  else if (hasNewlines(trimmedMessage)) errs.push(field.invalid(`${rulePath}.message`, message, 'message must not contain line breaks'));
  else if (hasNewlines(rule) && !trimmedMessage) errs.push(field.required(`${rulePath}.message`, 'message must be specified if rule contains line breaks'));
  if (r.messageExpression && !r.messageExpression.trim())
    errs.push(field.required(`${rulePath}.messageExpression`, 'messageExpression must be non-empty if specified'));
  if (r.reason !== undefined && !SUPPORTED_REASONS.includes(r.reason)) errs.push(field.notSupported(`${rulePath}.reason`, r.reason, SUPPORTED_REASONS));
  const fieldPath = r.fieldPath ?? '';
  if (fieldPath && !fieldPath.trim()) errs.push(field.invalid(`${rulePath}.fieldPath`, fieldPath, 'fieldPath must be non-empty if specified'));
  if (hasNewlines(fieldPath)) errs.push(field.invalid(`${rulePath}.fieldPath`, fieldPath, 'fieldPath must not contain line breaks'));
  return errs;
}

/** What kube's compiler refuses in a schema's rules when the CRD is written: syntax, undeclared names, undefined fields, type mismatches, patterns RE2 rejects. */
export function celRuleErrors(schema: JSONSchemaProps, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const walk = (s: JSONSchemaProps, at: string): void => {
    const rules = s['x-kubernetes-validations'] ?? [];
    const schemaErrors = rules.flatMap((r, i) => ruleSchemaErrors(r, `${at}.x-kubernetes-validations[${i}]`));
    errs.push(...schemaErrors);
    // kube compiles a level's rules only when its schema checks found nothing: a broken schema gives no actionable CEL errors
    if (schemaErrors.length === 0)
      rules.forEach((r, i) => {
        const rulePath = `${at}.x-kubernetes-validations[${i}]`;
        const ruleError = ruleCompileError(r.rule, s, s === schema, r.optionalOldSelf === true, 'bool');
        if (ruleError !== null) errs.push(field.invalid(`${rulePath}.rule`, ruleValue(r), ruleError));
        // compileRule compiles the messageExpression only once the rule compiled
        else if (r.messageExpression?.trim()) {
          const messageError = ruleCompileError(r.messageExpression, s, s === schema, r.optionalOldSelf === true, 'string');
          if (messageError !== null) errs.push(field.invalid(`${rulePath}.messageExpression`, ruleValue(r), messageError));
        }
      });
    for (const [name, child] of Object.entries(s.properties ?? {})) walk(child, `${at}.properties[${name}]`);
    if (s.items) walk(s.items, `${at}.items`);
    if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${at}.additionalProperties`);
  };
  walk(schema, path);
  return errs;
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

/** The schema's type, which kube shows as the value of a failed rule ("object", "string"; "" for int-or-string). */
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

function failure(rule: ValidationRule, at: string, s: JSONSchemaProps, message: string): FieldError {
  const path = rule.fieldPath ? `${at}${rule.fieldPath}` : at;
  switch (rule.reason) {
    case 'FieldValueRequired':
      return field.required(path, message);
    case 'FieldValueForbidden':
      return field.forbidden(path, message);
    case 'FieldValueDuplicate':
      return { ...field.duplicate(path, schemaType(s)), detail: message };
    default:
      return field.invalid(path, schemaType(s), message);
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
          return [
            {
              rule,
              transition: /\boldSelf\b/.test(rule.rule),
              check: compile(rule.rule),
              message: rule.messageExpression ? compile(rule.messageExpression) : null,
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
    if (node) errs.push(...this.evaluate(node, value, old ?? undefined, at || '<nil>', ratchet, budget, warn));
    if (Array.isArray(value) && s.items) {
      const items = s.items;
      value.forEach((item, i) => errs.push(...this.walk(item, oldListItem(s, old, item), items, `${at}[${i}]`, ratchetIndex(ratchet, i), budget, warn)));
    } else if (typeof value === 'object') {
      const correlatable = s['x-kubernetes-map-type'] !== 'atomic';
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
    const stop = (message: string): FieldErrorList => {
      budget.remaining = -1;
      return [...errs, field.invalid(at, schemaType(node.schema), message)];
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
        errs.push(evaluationFailure(compiled.rule, at, node.schema, result.message));
        continue;
      }
      const add = (e: FieldError): void => {
        if (!compiled.transition && unchanged(ratchet)) warn(fieldErrorMessage(e));
        else errs.push(e);
      };
      let custom: CelResult | undefined;
      if (compiled.message) {
        const evaluation = compiled.message(activation);
        if (evaluation.cost > budget.remaining) return stop(`messageExpression evaluation failed due to running out of cost budget, ${outOfBudget}`);
        budget.remaining -= evaluation.cost;
        if (evaluation.exceeded)
          return stop(`${outOfBudget} due to call cost exceeds limit for messageExpression: ${goQuote(compiled.rule.messageExpression!)}`);
        custom = evaluation.result;
      }
      add(failure(compiled.rule, at, node.schema, failureMessage(compiled.rule, custom)));
    }
    return errs;
  }
}
