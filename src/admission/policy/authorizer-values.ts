import type { UserInfo } from '../../auth/user';

/**
 * The values the authorizer library (authorizer-library.ts) works on: maps with '@'-keys. Requests
 * build them without loading the CEL engine.
 */

export type Entries = Map<string, unknown>;

export const KIND = '@kind';
export const USER = '@user';

/** The `authorizer` variable for a user. */
export function authorizerValue(user: UserInfo): Entries {
  return new Map<string, unknown>([
    [KIND, 'authorizer'],
    [USER, JSON.stringify(user)],
  ]);
}

/** `authorizer.requestResource`: a resource check for the request's own resource. */
export function requestResourceValue(user: UserInfo, r: { group: string; resource: string; subresource: string; namespace: string; name: string }): Entries {
  return new Map<string, unknown>([[KIND, 'resource'], [USER, JSON.stringify(user)], ...Object.entries(r)]);
}
