import { abortSignalOf } from '../../api/request-abort';
import { isExemptAdmissionConfiguration } from '../exempt-configuration';
import { jsonEqual } from '../../api/deep-equal';
import { badRequest, forbidden, internalError } from '../../api/errors';
import { objectsIn, stringOf as str } from '../../api/json-read';
import type { KubeObject } from '../../api/types';
import { isPromise, type MaybePromise } from '../../api/maybe-promise';
import { applyJsonPatch } from '../../patch/json-patch';
import type { AuthorizeFn } from '../policy/authorizer-library';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission';
import { MutatorReinvocation, type ReinvocationContext } from '../reinvocation';
import { compiledMatchConditions } from './match-conditions';
import { matchResource, type EquivalentsOf, type MatchedResource } from './equivalents';
import { postJson, webhookTarget, webhookUrl, WebhookCallError } from './client';
import { selectorsMatch } from './matching';
import { admissionReview, denial, InvalidResponse, readResponse, reviewVersion } from './review';
import { matchConditionsOutcome } from '../policy/match-conditions';
import { requestVariables } from '../policy/request-variables';

type Hook = Record<string, unknown>;

/** Where the plugin reads configurations, namespaces and Services' endpoints (the registry's caches). */
type WebhookConfigurationResource = 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations';

export interface WebhookSource {
  configurations(resource: WebhookConfigurationResource): MaybePromise<readonly KubeObject[]>;
  namespaceLabels(namespace: string): Promise<Record<string, string> | undefined>;
  /** An address serving the Service's port; throws an Error saying why there is none. */
  resolveService(namespace: string, name: string, port: number): Promise<{ host: string; port: number }>;
  /** The versions a request's resource is also served as (matchPolicy Equivalent). */
  equivalents: EquivalentsOf;
  /** kapi's authorizer, for matchConditions' `authorizer`. */
  authorize: AuthorizeFn;
}

/** One webhook of a configuration, with its identity across the chain's passes (the accessor's UID: configuration, name, index). */
interface ConfiguredHook {
  config: KubeObject;
  hook: Hook;
  key: string;
}

/** A webhook the request reaches, and the resource it is presented to it as. */
interface Invocation {
  hook: Hook;
  as: MatchedResource;
  /** The webhook's identity across the chain's passes (the accessor's UID: configuration, name, index). */
  key: string;
}

/** What the plugin reports of each call: apiserver_admission_webhook_* metrics. */
export interface WebhookObserver {
  observe(name: string, type: 'admit' | 'validating', operation: string, rejected: boolean, seconds: number): void;
  rejection(name: string, type: 'admit' | 'validating', operation: string, errorType: 'calling_webhook_error' | 'no_error', code: number): void;
}

const DRY_RUN_SAFE = ['None', 'NoneOnDryRun'];

function byName(a: KubeObject, b: KubeObject): number {
  const [x, y] = [a.metadata.name ?? '', b.metadata.name ?? ''];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The webhooks of every configuration, sorted by name as kube's configuration manager sorts them. */
function hooksOf(configurations: readonly KubeObject[]): ConfiguredHook[] {
  return [...configurations]
    .sort(byName)
    .flatMap((config) => objectsIn(config.webhooks).map((hook, index) => ({ config, hook, key: `${config.metadata.name ?? ''}/${str(hook.name)}/${index}` })));
}

/**
 * MutatingAdmissionWebhook (admit) and ValidatingAdmissionWebhook (validate): the configured
 * webhooks whose rules and selectors match, called as k8s.io/apiserver's dispatchers call them.
 */
export class WebhookAdmission implements AdmissionPlugin {
  readonly name = 'AdmissionWebhooks';

  constructor(
    private readonly source: WebhookSource,
    private readonly observer: WebhookObserver,
  ) {}

  /**
   * The mutating webhooks in order (mutatingDispatcher.Dispatch); in the chain's second pass only
   * those with reinvocationPolicy IfNeeded that were called before a change are called again.
   */
  admit(attrs: AdmissionAttributes, context: ReinvocationContext): Promise<void> | void {
    const configs = this.configurations(attrs, 'mutatingwebhookconfigurations');
    if (!isPromise(configs) && configs.length === 0) return;
    return this.admitWith(attrs, context, configs);
  }

  private async admitWith(attrs: AdmissionAttributes, context: ReinvocationContext, configs: MaybePromise<readonly KubeObject[]>): Promise<void> {
    const reinvocation = MutatorReinvocation.begin(context, 'MutatingAdmissionWebhook', attrs.object);
    try {
      for (const configured of hooksOf(await configs)) {
        // Decided at the webhook's turn, on the object as the webhooks before it left it (mutatingDispatcher.Dispatch).
        const invocation = await this.shouldCall(configured, attrs);
        if (!invocation || reinvocation.skips(invocation.key)) continue;
        const changed = await this.mutate(invocation, attrs);
        reinvocation.invoked(invocation.key, changed, invocation.hook.reinvocationPolicy === 'IfNeeded');
      }
    } finally {
      reinvocation.end(attrs.object);
    }
  }

  /** Calls one mutating webhook and applies its patch; true when the object changed. */
  private async mutate(invocation: Invocation, attrs: AdmissionAttributes): Promise<boolean> {
    const res = await this.call(invocation, attrs, true);
    if (!res?.patch || !attrs.object) return false;
    // The patch is against the object as the webhook saw it (an equivalent version), then back to the request's.
    const { as } = invocation;
    const patched = as.revert(applyJsonPatch(as.convert(attrs.object), res.patch) as KubeObject);
    if (jsonEqual(patched, attrs.object)) return false;
    // The store keeps the object it passed in, so the patched one replaces its contents.
    for (const key of Object.keys(attrs.object)) delete (attrs.object as Record<string, unknown>)[key];
    Object.assign(attrs.object, patched);
    return true;
  }

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    const configs = this.configurations(attrs, 'validatingwebhookconfigurations');
    if (!isPromise(configs) && configs.length === 0) return;
    return this.validateWith(attrs, configs);
  }

  private async validateWith(attrs: AdmissionAttributes, configs: MaybePromise<readonly KubeObject[]>): Promise<void> {
    const invocations: Invocation[] = [];
    for (const configured of hooksOf(await configs)) {
      const invocation = await this.shouldCall(configured, attrs);
      if (invocation) invocations.push(invocation);
    }
    const outcomes = await Promise.allSettled(invocations.map((invocation) => this.call(invocation, attrs, false)));
    const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (refused) throw refused.reason;
  }

  /** The configurations that apply to a request: none for admission's own configuration. */
  private configurations(attrs: AdmissionAttributes, resource: WebhookConfigurationResource): MaybePromise<readonly KubeObject[]> {
    return isExemptAdmissionConfiguration({ def: attrs.def }) ? [] : this.source.configurations(resource);
  }

  /**
   * generic.Webhook.ShouldCallHook: selectors, rules (or under matchPolicy Equivalent an
   * equivalent resource's), then matchConditions, on the request as it is now.
   */
  private async shouldCall({ config, hook, key }: ConfiguredHook, attrs: AdmissionAttributes): Promise<Invocation | null> {
    const { def } = attrs;
    if (!(await selectorsMatch(hook, attrs, (ns) => this.source.namespaceLabels(ns)))) return null;
    const target = { operation: attrs.operation, subresource: attrs.subresource, clusterScoped: !def.namespaced };
    const matched = matchResource(objectsIn(hook.rules), target, this.source.equivalents(def), hook.matchPolicy !== 'Exact');
    if (!matched) return null;
    // A subresource with a kind of its own (Scale) is sent as that kind whatever version matched.
    const as = attrs.kind.kind === def.kind ? matched : { ...matched, kind: attrs.kind, convert: (o: KubeObject) => o, revert: (o: KubeObject) => o };
    return this.conditionsMatch(config, hook, attrs, as) ? { hook, as, key } : null;
  }

  /** matchConditions: all true calls the webhook; one false skips it; an error skips it (Ignore) or refuses the request with 403 (Fail). */
  private conditionsMatch(config: KubeObject, hook: Hook, attrs: AdmissionAttributes, as: MatchedResource): boolean {
    const conditions = compiledMatchConditions(config, hook);
    if (conditions.length === 0) return true;
    const outcome = matchConditionsOutcome(conditions, hook.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail', requestVariables(attrs, as), this.source.authorize);
    if (outcome.error !== null) throw forbidden({ group: attrs.def.group, resource: attrs.def.resource }, attrs.name, outcome.error);
    return outcome.matches;
  }

  /** One webhook call; a refusal throws, a failed call throws or is ignored as the failure policy says. */
  private async call({ hook, as }: Invocation, attrs: AdmissionAttributes, mutating: boolean) {
    const name = str(hook.name);
    const type = mutating ? 'admit' : 'validating';
    if (attrs.dryRun && !DRY_RUN_SAFE.includes(str(hook.sideEffects))) throw badRequest(`admission webhook "${name}" does not support dry run`);
    const version = reviewVersion(hook);
    const { uid, review } = admissionReview(attrs, version, as);
    const timeoutSeconds = typeof hook.timeoutSeconds === 'number' ? hook.timeoutSeconds : 10;
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
    const url = webhookUrl(hook.clientConfig, timeoutSeconds);
    try {
      const target = await webhookTarget(hook.clientConfig, url.url, (ns, name, port) => this.source.resolveService(ns, name, port));
      const reply = await postJson(target, review, timeoutSeconds * 1000, abortSignalOf(attrs.request.signal));
      if (reply.status < 200 || reply.status > 299)
        throw new WebhookCallError(`the server responded with the status code ${reply.status} but did not return more information`);
      const res = readResponse(reply.body, version, uid, mutating);
      for (const warning of res.warnings) attrs.request.warn(warning);
      for (const [key, value] of Object.entries(res.auditAnnotations)) attrs.request.auditAnnotations.set(`${name}/${key}`, value);
      this.observer.observe(name, type, attrs.operation, !res.allowed, elapsed());
      if (res.allowed) return res;
      const err = denial(name, res.status);
      this.observer.rejection(name, type, attrs.operation, 'no_error', err.code);
      throw err;
    } catch (err) {
      const reason =
        err instanceof WebhookCallError
          ? `failed to call webhook: Post "${url.text}": ${err.message}`
          : err instanceof InvalidResponse
            ? `received invalid webhook response: ${err.message}`
            : null;
      if (reason === null) throw err;
      // failurePolicy Ignore lets the request through (the dispatchers' "failing open"), and the call does not count as a rejection.
      const ignore = hook.failurePolicy === 'Ignore';
      this.observer.observe(name, type, attrs.operation, !ignore, elapsed());
      if (ignore) return undefined;
      this.observer.rejection(name, type, attrs.operation, 'calling_webhook_error', 500);
      throw internalError(`failed calling webhook "${name}": ${reason}`);
    }
  }
}
