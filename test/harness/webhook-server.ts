import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, createLeafCertificate } from '../../src/auth/certificates';

/** An AdmissionReview as the webhook receives it (the fields a test reads). */
export type Review = { apiVersion: string; request: Record<string, any> };

/** What the stand-in answers a review sent to `path` with: the whole AdmissionReview body. */
export type Answer = (review: Review, path: string) => unknown;

export interface StandInWebhook {
  /** https://127.0.0.1:PORT */
  base: string;
  /** The CA that signed its serving certificate, base64-encoded as a webhook's `caBundle`. */
  caBundle: string;
  server: Server;
  close(): Promise<void>;
}

/** The AdmissionReview answering `review` with `response` (its uid filled in). */
export function reviewResponse(review: Review, response: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...response } };
}

/** A stand-in admission webhook: HTTPS on 127.0.0.1 with a CA of its own; each review is answered by `answer`. */
export async function startStandInWebhook(answer: Answer, hosts: string[] = ['127.0.0.1']): Promise<StandInWebhook> {
  const ca = createCertificateAuthority('stand-in-webhook-ca');
  const leaf = createLeafCertificate(ca, { commonName: 'webhook', usage: 'server', hosts, validDays: 1 });
  const server = createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      void Promise.resolve(answer(JSON.parse(text) as Review, path)).then((body) =>
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body)),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caBundle: Buffer.from(ca.cert).toString('base64'),
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
