import { classifyEtcdError, storageErrorFor } from './etcd-call-error';

function grpcError(code: number, details: string): Error {
  const names: Record<number, string> = { 3: 'INVALID_ARGUMENT', 4: 'DEADLINE_EXCEEDED', 8: 'RESOURCE_EXHAUSTED', 14: 'UNAVAILABLE', 11: 'OUT_OF_RANGE' };
  return Object.assign(new Error(`${code} ${names[code]}: ${details}`), { code });
}

describe('classifyEtcdError', () => {
  it.each([
    [grpcError(14, 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2379'), 'unsent'],
    [grpcError(14, 'etcdserver: no leader'), 'unsent'],
    [grpcError(8, 'etcdserver: too many requests'), 'unsent'],
    [grpcError(14, 'Connection dropped'), 'unknown'],
    [grpcError(4, 'Deadline exceeded after 3.001s'), 'unknown'],
    [grpcError(14, 'etcdserver: request timed out'), 'unknown'],
    [grpcError(14, 'etcdserver: leader changed'), 'unknown'],
    [grpcError(11, 'etcdserver: mvcc: required revision has been compacted'), 'compacted'],
    [grpcError(11, 'etcdserver: mvcc: required revision is a future revision'), 'future'],
    [grpcError(3, 'etcdserver: request is too large'), 'tooLarge'],
    [grpcError(8, 'Received message larger than max (2200000 vs. 2097152)'), 'tooLarge'],
    [new Error('etcdserver: mvcc: database space exceeded'), 'permanent'],
  ])('%s is %s', (err, kind) => {
    expect(classifyEtcdError(err)).toBe(kind);
  });
});

describe('storageErrorFor', () => {
  it('maps a missed deadline to Timeout and a lost connection to Unavailable', () => {
    expect(storageErrorFor('unknown', '4 DEADLINE_EXCEEDED: Deadline exceeded').code).toBe('Timeout');
    expect(storageErrorFor('unknown', '14 UNAVAILABLE: Connection dropped').code).toBe('Unavailable');
    expect(storageErrorFor('unsent', 'etcdserver: no leader').code).toBe('Unavailable');
    expect(storageErrorFor('tooLarge', 'etcdserver: request is too large').code).toBe('TooLarge');
    expect(storageErrorFor('compacted', 'compacted').code).toBe('TooOld');
  });
});
