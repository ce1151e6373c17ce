import { enabledAdmissionPlugins } from './plugin-names';

test('the default set runs in kube order, with the plugins kapi has among it', () => {
  const on = enabledAdmissionPlugins([], []);
  expect(on.filter((n) => ['NamespaceLifecycle', 'ServiceAccount', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook'].includes(n))).toEqual([
    'NamespaceLifecycle',
    'ServiceAccount',
    'MutatingAdmissionWebhook',
    'ValidatingAdmissionWebhook',
  ]);
  expect(on).not.toContain('AlwaysDeny');
  expect(on).not.toContain('NodeRestriction');
});

test('enable adds a default-off plugin in its place; disable removes a default one', () => {
  const on = enabledAdmissionPlugins(['NodeRestriction'], ['ServiceAccount']);
  expect(on).toContain('NodeRestriction');
  expect(on).not.toContain('ServiceAccount');
  expect(on.indexOf('NodeRestriction')).toBeLessThan(on.indexOf('MutatingAdmissionWebhook'));
});

test('unknown and overlapping names are refused with kube messages', () => {
  expect(() => enabledAdmissionPlugins(['Nope'], [])).toThrow('enable-admission-plugins plugin "Nope" is unknown');
  expect(() => enabledAdmissionPlugins([], ['Nah'])).toThrow('disable-admission-plugins plugin "Nah" is unknown');
  expect(() => enabledAdmissionPlugins(['ServiceAccount', 'LimitRanger'], ['LimitRanger', 'ServiceAccount'])).toThrow(
    '[LimitRanger ServiceAccount] in enable-admission-plugins and disable-admission-plugins overlapped',
  );
});

test('kube plugins kapi lacks are refused by name; the inert ones and disabling any are accepted', () => {
  expect(() => enabledAdmissionPlugins(['NodeRestriction', 'EventRateLimit', 'PodNodeSelector'], [])).toThrow(
    'enable-admission-plugins plugin "EventRateLimit" is not implemented by kapi, enable-admission-plugins plugin "PodNodeSelector" is not implemented by kapi',
  );
  expect(enabledAdmissionPlugins(['AlwaysAdmit', 'ClusterTrustBundleAttest', 'AlwaysPullImages', 'DenyServiceExternalIPs'], ['EventRateLimit'])).toEqual(
    expect.arrayContaining(['AlwaysAdmit', 'AlwaysPullImages', 'DenyServiceExternalIPs']),
  );
});
