/**
 * Who every request on kapi's plain-HTTP port is: the user kube-apiserver's insecure port
 * authenticated every request as (its InsecureSuperuser), a member of the privileged group.
 */
export const INSECURE_PORT_USER = {
  username: 'system:unsecured',
  groups: ['system:masters', 'system:authenticated'],
};

/** Why every access review is allowed. */
export const INSECURE_PORT_REASON = 'kapi has no authorizer: its insecure port allows every request';
