import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import { objectOf, objectsIn, stringOf, stringsIn } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { certificateRequestDer, requestSignatureValid } from '../auth/certificate-request';
import { signClientCertificate, type PemPair } from '../auth/certificates';
import { systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { nowTimestamp } from '../registry/time';
import { hasCondition, requestOf } from '../resources/certificatesigningrequests';
import { QueueController } from './runtime/controller';
import { CachedInformer } from './runtime/informer';
import { systemClock, type Clock } from './runtime/clock';
import { WorkQueue } from './work-queue';
import type { SharedInformers } from './runtime/shared-informers';
import { jsonClone } from '../api/json-clone';

type Log = (message: string, err?: unknown) => void;

const RETRY_MS = 1000;
/** kube-controller-manager's --cluster-signing-duration default: a year. */
const MAX_DURATION_SECONDS = 365 * 24 * 3600;
const CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];

/** Why the signer refuses a request (the Failed condition's message), or null to sign it (csrsigning's validators). */
function refusal(csr: KubeObject, signer: string): string | null {
  const spec = objectOf(csr.spec);
  const der = certificateRequestDer(Buffer.from(stringOf(spec.request), 'base64').toString('utf8'));
  if (!der || !requestSignatureValid(der)) return 'unable to verify certificate request signature';
  const bad = stringsIn(spec.usages).filter((u) => !CLIENT_USAGES.includes(u));
  if (bad.length > 0) return `invalid usage for client certificate: ${bad[0]}`;
  if (signer === KUBELET_CLIENT_SIGNER) {
    // ValidateKubeletClientCSR: the node's own identity, in the system:nodes group alone.
    const { commonName, organizations } = requestOf(csr).names;
    if (organizations.length !== 1 || organizations[0] !== 'system:nodes') return 'subject organization is not system:nodes';
    if (!commonName.startsWith('system:node:')) return 'subject common name does not begin with "system:node:"';
  }
  return null;
}

function needsSigning(csr: KubeObject): boolean {
  const signer = stringOf(objectOf(csr.spec).signerName);
  if (signer !== CLIENT_SIGNER && signer !== KUBELET_CLIENT_SIGNER) return false;
  if (!hasCondition(csr, 'Approved') || hasCondition(csr, 'Denied') || hasCondition(csr, 'Failed')) return false;
  return !stringOf(objectOf(csr.status).certificate);
}

/** The status a signed (or refused) request gets. */
function signed(csr: KubeObject, ca: PemPair): Record<string, unknown> {
  const status = objectOf(jsonClone(csr.status));
  const signer = stringOf(objectOf(csr.spec).signerName);
  const reason = refusal(csr, signer);
  if (reason) {
    const now = nowTimestamp();
    status.conditions = [
      ...objectsIn(status.conditions),
      { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: reason, lastUpdateTime: now, lastTransitionTime: now },
    ];
    return status;
  }
  const requested = objectOf(csr.spec).expirationSeconds;
  const seconds = typeof requested === 'number' ? Math.min(requested, MAX_DURATION_SECONDS) : MAX_DURATION_SECONDS;
  const { subject, publicKey } = requestOf(csr);
  status.certificate = Buffer.from(signClientCertificate(ca, subject, publicKey, seconds)).toString('base64');
  return status;
}

/**
 * The kube-apiserver-client and kube-apiserver-client-kubelet signers of kube-controller-manager's
 * csrsigning controller, with the cluster CA kapi generated: an approved request for either gets
 * its certificate in status.certificate, or a Failed condition when the signer refuses it.
 */
export class CsrSigningController extends QueueController {
  readonly name = 'csrsigning-controller';
  private readonly informer: CachedInformer;
  protected readonly queue: WorkQueue;

  constructor(
    private readonly csrs: ObjectStore,
    private readonly ca: PemPair,
    informers: SharedInformers,
    private readonly log: Log,
    clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      async (name) => {
        const csr = this.informer.get(name);
        if (csr && needsSigning(csr)) await this.sign(name);
        return true;
      },
      (name, err) => this.log(`csrsigning: ${name} failed`, err),
      RETRY_MS,
      clock,
    );
    const enqueue = (csr: KubeObject): void => {
      if (needsSigning(csr)) this.queue.add(csr.metadata.name!);
    };
    this.informer = informers.informer(csrs, { added: enqueue, updated: (_prev, csr) => enqueue(csr) }, { name: 'certificatesigningrequests' });
  }

  private async sign(name: string): Promise<void> {
    try {
      await this.csrs.update(
        systemContext(
          {
            namespace: '',
            group: 'certificates.k8s.io',
            version: 'v1',
            resource: 'certificatesigningrequests',
            subresource: 'status',
            name,
            verb: 'update',
          },
          SERVER_OWN_WRITE,
        ),
        name,
        (current) => {
          if (needsSigning(current)) current.status = signed(current, this.ca);
          return current;
        },
        { dryRun: false },
      );
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return;
      throw err;
    }
  }

  protected get informers(): CachedInformer[] {
    return [this.informer];
  }
}
