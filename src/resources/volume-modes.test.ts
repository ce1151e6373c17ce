import { fieldErrorMessage } from '../api/field-errors';
import { accessModesCell, validateAccessModes, validatePositiveQuantity } from './volume-modes';

describe('access modes', () => {
  test('kubectl prints the short forms in a fixed order, each once', () => {
    expect(accessModesCell(['ReadWriteOncePod', 'ReadOnlyMany', 'ReadWriteOnce', 'ReadOnlyMany'])).toBe('RWO,ROX,RWOP');
    expect(accessModesCell(undefined)).toBe('');
  });

  test('validation: required, from the allowed set, ReadWriteOncePod alone', () => {
    const messages = (modes: unknown) => validateAccessModes(modes, 'spec.accessModes', 'at least 1 access mode is required').map(fieldErrorMessage);
    expect(messages([])).toEqual(['spec.accessModes: Required value: at least 1 access mode is required']);
    expect(messages(['ReadWriteOnce', 'Shared'])).toEqual([
      'spec.accessModes: Unsupported value: "Shared": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    ]);
    expect(messages(['ReadWriteOncePod', 'ReadWriteMany'])).toEqual(['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes']);
    expect(messages(['ReadWriteOncePod'])).toEqual([]);
  });
});

test('sizes must be positive quantities', () => {
  expect(validatePositiveQuantity('1Gi', 'x')).toEqual([]);
  expect(validatePositiveQuantity('0Mi', 'x').map(fieldErrorMessage)).toEqual(['x: Invalid value: "0Mi": must be greater than zero']);
  expect(validatePositiveQuantity('lots', 'x').map(fieldErrorMessage)).toEqual(['x: Invalid value: "lots": must be greater than zero']);
});
