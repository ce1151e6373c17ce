import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener } from 'node:http';
import { internalError, StatusError } from '../../api/errors';
import { bearerWithExtraSpace, EXTRA_SPACE_WARNING } from '../../auth/authenticators';
import type { UserInfo } from '../../auth/user';
import { addWarning } from '../warnings';
import { writeError } from '../respond';

const USER = Symbol('kapi.user');
type WithUser = IncomingMessage & { [USER]?: UserInfo };

/** Who the request acts as, set by the authentication filter (or the insecure port) before any handler runs. */
export function userOf(req: IncomingMessage): UserInfo {
  const user = (req as WithUser)[USER];
  if (!user) throw new Error('request reached a handler without passing the authentication filter');
  return user;
}

function setUser(req: IncomingMessage, user: UserInfo): void {
  (req as WithUser)[USER] = user;
}

/** responsewriters' Unauthorized: apierrors.NewUnauthorized("Unauthorized"). */
export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export type Authenticate = (req: IncomingMessage) => Promise<UserInfo | { error: string } | null>;

/**
 * filters.WithAuthentication: the user the authenticators find is attached to the request;
 * bad or missing credentials (when anonymous requests are off) end it with a 401 Status.
 */
export function withAuthentication(authenticate: Authenticate, next: RequestListener, log: (message: string, err?: unknown) => void): RequestListener {
  return (req, res) => {
    if (bearerWithExtraSpace(req.headers.authorization)) addWarning(res, EXTRA_SPACE_WARNING);
    authenticate(req).then(
      (result) => {
        if (result && 'name' in result) {
          setUser(req, result);
          next(req, res);
          return;
        }
        if (result) log(`unable to authenticate the request: ${result.error}`);
        res.setHeader('Audit-Id', randomUUID());
        res.setHeader('Cache-Control', 'no-cache, private');
        writeError(res, unauthorized(), req.headers.accept, ['json', 'yaml'], false, false);
      },
      (err: unknown) => {
        log('authentication failed', err);
        writeError(res, internalError('authentication failed'), req.headers.accept, ['json'], false, false);
      },
    );
  };
}

/** Every request as one user: the insecure port's superuser. */
export function withUser(user: UserInfo, next: RequestListener): RequestListener {
  return (req, res) => {
    setUser(req, user);
    next(req, res);
  };
}
