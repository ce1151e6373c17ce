/**
 * CEL's runtime cost limits, as kube sets them (apiserver/pkg/apis/cel/config.go): one evaluation
 * may spend PER_CALL_LIMIT units, the rules of one custom resource RUNTIME_CEL_COST_BUDGET together.
 * Apart from cost.ts so that what only budgets (admission's CostBudget, loaded at start) does not
 * load @bufbuild/cel, which the first compiled expression loads.
 */

export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** cel-go's error when the limit is reached. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';
