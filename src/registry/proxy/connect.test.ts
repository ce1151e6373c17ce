import { splitSchemeNamePort } from './connect';

test('splitSchemeNamePort reads name, name:port and scheme:name:port as utilnet does', () => {
  expect(splitSchemeNamePort('web')).toEqual({ scheme: '', name: 'web', port: '' });
  expect(splitSchemeNamePort('web:80')).toEqual({ scheme: '', name: 'web', port: '80' });
  expect(splitSchemeNamePort('https:web:443')).toEqual({ scheme: 'https', name: 'web', port: '443' });
  expect(splitSchemeNamePort('web:http')).toEqual({ scheme: '', name: 'web', port: 'http' });
  expect(splitSchemeNamePort('ftp:web:21')).toBeNull();
  expect(splitSchemeNamePort(':80')).toBeNull();
  expect(splitSchemeNamePort('a:b:c:d')).toBeNull();
});
