import { readFileSync } from 'node:fs';
import type { UserInfo } from './user';

/** One CSV record, as Go's encoding/csv reads it: commas, double-quoted fields with "" for a quote. */
function parseRecord(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') (fields.push(field), (field = ''));
    else field += c;
  }
  fields.push(field);
  return fields;
}

/**
 * The users of a --token-auth-file (kube's tokenfile.NewCSV): token,user,uid[,"group1,group2"];
 * blank lines are skipped, a record with an empty token is ignored, a later duplicate wins.
 */
export function parseTokenFile(content: string, file: string): Map<string, UserInfo> {
  const users = new Map<string, UserInfo>();
  for (const line of content.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const record = parseRecord(line);
    if (record.length < 3) throw new Error(`token file '${file}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    const [token, name, uid, groups] = record;
    if (token === '') continue;
    users.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(','), extra: {} });
  }
  return users;
}

export function loadTokenFile(file: string): Map<string, UserInfo> {
  return parseTokenFile(readFileSync(file, 'utf8'), file);
}
