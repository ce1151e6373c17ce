import { goFormatValue } from './go-value-format';

test("values print as Go's fmt prints an interface{} with %v", () => {
  expect(goFormatValue({ metadata: { labels: 'invalid' } })).toBe('map[metadata:map[labels:invalid]]');
  expect(goFormatValue({ b: [1, 'x', true, null], a: {} })).toBe('map[a:map[] b:[1 x true <nil>]]');
  expect([123456, 1000000, 1234567, 0.0001, 0.00001, 1.5, -2].map(goFormatValue)).toEqual(['123456', '1e+06', '1.234567e+06', '0.0001', '1e-05', '1.5', '-2']);
});
