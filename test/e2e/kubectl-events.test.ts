import { kubectl, serverProcessForFile } from '../harness/process';

/** An events.k8s.io/v1 Event, as client-go's events recorder writes one, through kubectl's three views of events. */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

const manifest = (eventTime: string) => `apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: web-1.scheduled
  namespace: default
eventTime: "${eventTime}"
reportingController: default-scheduler
reportingInstance: default-scheduler-node-1
action: Binding
reason: Scheduled
regarding:
  apiVersion: v1
  kind: Pod
  name: web-1
  namespace: default
note: Successfully assigned default/web-1 to node-1
type: Normal
`;

test('kubectl apply an events.k8s.io/v1 Event; get events, get events.events.k8s.io and kubectl events show it', async () => {
  const eventTime = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  const applied = await kubectl(kapi.url, ['apply', '-f', '-'], manifest(eventTime));
  expect(applied.stderr).toBe('');
  expect(applied.stdout.trim()).toBe('event.events.k8s.io/web-1.scheduled created');

  const row = /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n\S+\s+Normal\s+Scheduled\s+pod\/web-1\s+Successfully assigned default\/web-1 to node-1\n$/;
  expect((await k('get', 'events')).stdout).toMatch(row);
  expect((await k('get', 'events.events.k8s.io')).stdout).toMatch(row);
  expect((await k('get', 'events.events.k8s.io', '-o', 'wide')).stdout).toMatch(/default-scheduler, default-scheduler-node-1/);

  const core = JSON.parse((await k('get', 'events', 'web-1.scheduled', '-o', 'json')).stdout);
  expect(core).toMatchObject({
    apiVersion: 'v1',
    involvedObject: { kind: 'Pod', name: 'web-1' },
    message: 'Successfully assigned default/web-1 to node-1',
    reportingComponent: 'default-scheduler',
  });

  expect((await k('events')).stdout).toMatch(
    /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n\S+\s+Normal\s+Scheduled\s+Pod\/web-1\s+Successfully assigned default\/web-1 to node-1\n$/,
  );
  expect((await k('events', '--for', 'pod/web-1')).stdout).toMatch(/Scheduled\s+Pod\/web-1/);
});

test("kubectl apply of an Event without eventTime is refused with kube-apiserver's message", async () => {
  const res = await kubectl(kapi.url, ['apply', '-f', '-'], manifest('').replace('eventTime: ""\n', '').replace('web-1.scheduled', 'no-time'));
  expect(res.code).not.toBe(0);
  expect(res.stderr).toContain('eventTime: Required value');
});
