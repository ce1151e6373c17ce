import { evaluate } from './test-eval';

const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('format library', () => {
  test.each([
    ["format.dns1123Label().validate('my-label-name').hasValue()", false],
    ["format.dns1123Label().validate('Bad_Name').value()", [LABEL_MESSAGE]],
    ["format.dns1123Label().validate('Bad_Name').value().join('\\n')", LABEL_MESSAGE],
    ["format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()", false],
    ["format.dns1035Label().validate('1abc').hasValue()", true],
    ["format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()", false],
    ["format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()", false],
    ["format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-').hasValue()", false],
    ["format.dns1035LabelPrefix().validate('my-label-prefix-').hasValue()", false],
    ["format.labelValue().validate('-bad').hasValue()", true],
    ["format.uri().validate('http://example.com').hasValue()", false],
    ["format.uri().validate('x y').value()", ['parse "x y": invalid URI for request']],
    ["format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()", false],
    ["format.uuid().validate('nope').value()", ['does not match the UUID format']],
    [
      "format.byte().validate('aGVsbG8=').hasValue() || format.date().validate('2021-01-01').hasValue() || format.datetime().validate('2021-01-01T00:00:00Z').hasValue()",
      false,
    ],
    [
      "format.byte().validate('!').value() + format.date().validate('2021-13-01').value() + format.datetime().validate('yesterday').value()",
      ['invalid base64', 'invalid date', 'invalid datetime'],
    ],
    ["format.named('dns1123Label').value().validate('ok') == format.dns1123Label().validate('ok')", true],
    ["format.named('nope').hasValue()", false],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });
});
