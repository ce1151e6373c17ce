import { parseTokenFile } from './token-file';

describe('static token file', () => {
  test('token,user,uid and a quoted group list; blank lines and empty tokens skipped', () => {
    const users = parseTokenFile('t1,alice,u1,"dev,ops"\n\n,nobody,u0\nt2,bob,u2\n"t,3",carol,u3,admins\n', 'f.csv');
    expect([...users.keys()]).toEqual(['t1', 't2', 't,3']);
    expect(users.get('t1')).toEqual({ name: 'alice', uid: 'u1', groups: ['dev', 'ops'], extra: {} });
    expect(users.get('t2')).toEqual({ name: 'bob', uid: 'u2', groups: [], extra: {} });
    expect(users.get('t,3')?.groups).toEqual(['admins']);
  });

  test('fewer than three columns is an error naming the file', () => {
    expect(() => parseTokenFile('t1,alice\n', 'tokens.csv')).toThrow(
      "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    );
  });
});
