import { tooManyRequests, type StatusError } from '../../api/errors';
import type { RequestInfo } from '../request-info';

/** Verbs that only read (k8s.io/apiserver's nonMutatingRequestVerbs). */
const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);

export interface InFlightLimits {
  /** Read-only requests at once; 0 for no limit (--max-requests-inflight). */
  readOnly: number;
  /** Mutating requests at once; 0 for no limit (--max-mutating-requests-inflight). */
  mutating: number;
}

/**
 * kube-apiserver's WithMaxInFlightLimit: two counters, one for reads and one for writes; a request
 * past its limit is refused at once with 429 and Retry-After: 1. Long-running requests are not
 * counted (the caller leaves them out).
 */
export class MaxInFlight {
  private readOnly = 0;
  private mutating = 0;

  constructor(private readonly limits: InFlightLimits) {}

  /** A release function, or the 429 to answer. */
  admit(info: RequestInfo): (() => void) | StatusError {
    const mutating = !NON_MUTATING_VERBS.has(info.verb);
    const limit = mutating ? this.limits.mutating : this.limits.readOnly;
    const current = mutating ? this.mutating : this.readOnly;
    if (limit > 0 && current >= limit) return tooManyRequests('Too many requests, please try again later.', 1);
    if (mutating) this.mutating++;
    else this.readOnly++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (mutating) this.mutating--;
      else this.readOnly--;
    };
  }

  get inFlight(): { readOnly: number; mutating: number } {
    return { readOnly: this.readOnly, mutating: this.mutating };
  }
}
