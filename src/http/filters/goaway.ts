import type { RequestListener } from 'node:http';

/**
 * filters.WithProbabilisticGoaway (--goaway-chance): an HTTP/2 request is, with that chance,
 * answered with `Connection: close`, which the HTTP/2 server turns into a GOAWAY: the client's
 * other streams finish and its next requests open a new connection (through a load balancer,
 * perhaps to another replica). HTTP/1.1 requests are left alone.
 */
export function withProbabilisticGoaway(chance: number, next: RequestListener, random: () => number = Math.random): RequestListener {
  if (chance <= 0) return next;
  return (req, res) => {
    if (req.httpVersionMajor === 2 && random() < chance) res.setHeader('Connection', 'close');
    next(req, res);
  };
}
