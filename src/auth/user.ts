/**
 * Who a request acts as, as k8s.io/apiserver's `user.Info`: authentication produces it,
 * impersonation may replace it, authorization, admission and audit read it.
 */
export interface UserInfo {
  name: string;
  uid: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/**
 * Who every request on kapi's plain-HTTP (insecure) port is: the user kube-apiserver's insecure
 * port authenticated every request as (its InsecureSuperuser), a member of the privileged group.
 */
export const INSECURE_SUPERUSER: UserInfo = {
  name: 'system:unsecured',
  uid: '',
  groups: ['system:masters', 'system:authenticated'],
  extra: {},
};
