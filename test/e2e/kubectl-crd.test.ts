import { kubectl, serverProcessForFile } from '../harness/process';

/** encoding/json's text of a string, as field.Error marshals a value (1.34+): HTML characters escaped. */
const goString = (s: string): string => JSON.stringify(s).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

/** A CRD through kubectl: apply, wait for it, use its resource with validation and columns, delete it. */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.size
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Size
      type: integer
      jsonPath: .spec.size
    - name: Ready
      type: string
      jsonPath: .status.conditions[?(@.type=="Ready")].status
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
                minimum: 1
              color:
                type: string
                enum: [red, blue]
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
`;

const widget = (size: number, extra = '') => `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
spec:
  size: ${size}
  color: red
  ports:
  - name: http
    port: 80${extra}
`;

test('kubectl apply of a CRD, then kubectl wait for it to be established', async () => {
  const applied = await kubectl(kapi.url, ['apply', '-f', '-'], CRD);
  expect(applied.stderr).toBe('');
  expect(applied.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created');
  const waited = await k('wait', '--for', 'condition=established', '--timeout=20s', 'crd/widgets.example.com');
  expect(waited.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met');
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], CRD)).stdout.trim()).toBe(
    'customresourcedefinition.apiextensions.k8s.io/widgets.example.com unchanged',
  );
  const names = await k('api-resources', '--api-group=example.com', '--no-headers');
  expect(names.stdout).toMatch(/^widgets\s+wd\s+example\.com\/v1\s+true\s+Widget\n$/);
});

test('kubectl apply of a custom resource twice; get shows the printer columns', async () => {
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], widget(3))).stdout.trim()).toBe('widget.example.com/w1 created');
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], widget(3))).stdout.trim()).toBe('widget.example.com/w1 unchanged');
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], widget(4))).stdout.trim()).toBe('widget.example.com/w1 configured');
  expect((await k('get', 'widgets')).stdout).toMatch(/^NAME\s+SIZE\s+READY\s+AGE\nw1\s+4\s+\S+\n$/);
  expect((await k('get', 'wd', 'w1', '-o', 'jsonpath={.spec.ports[0].port}')).stdout).toBe('80');
});

test('schema violations and unknown fields are refused by kubectl apply (strict field validation)', async () => {
  const invalid = await kubectl(kapi.url, ['apply', '-f', '-'], widget(0));
  expect(invalid.code).not.toBe(0);
  expect(invalid.stderr).toContain('spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1');
  const unknown = await kubectl(kapi.url, ['apply', '-f', '-'], widget(2, '\n    protocol: TCP'));
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toContain('unknown field "spec.ports[0].protocol"');
});

test('kubectl apply --server-side and kubectl patch on a custom resource; status through --subresource', async () => {
  const ssa = await kubectl(kapi.url, ['apply', '--server-side', '-f', '-'], widget(5));
  expect(ssa.stderr).toBe('');
  expect(ssa.stdout.trim()).toBe('widget.example.com/w1 serverside-applied');
  expect((await k('patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"color":"blue"}}')).stdout.trim()).toBe('widget.example.com/w1 patched');
  const status = await k('patch', 'widget', 'w1', '--subresource=status', '--type=merge', '-p', '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}');
  expect(status.stdout.trim()).toBe('widget.example.com/w1 patched');
  expect((await k('get', 'widget', 'w1')).stdout).toMatch(/\nw1\s+5\s+True\s+\S+\n$/);
});

test('kubectl scale through the scale subresource the CRD declares', async () => {
  expect((await k('scale', 'widget', 'w1', '--replicas=7')).stdout.trim()).toBe('widget.example.com/w1 scaled');
  expect((await k('get', 'widget', 'w1', '-o', 'jsonpath={.spec.size}')).stdout).toBe('7');
  await k('patch', 'widget', 'w1', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":6,"selector":"app=w1"}}');
  const scale = JSON.parse((await k('get', 'widget', 'w1', '--subresource=scale', '-o', 'json')).stdout);
  expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 7 }, status: { replicas: 6, selector: 'app=w1' } });
});

const gadgets = (spec: string, rules: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
${rules}
            properties:
              ttl: {type: string, format: duration, x-kubernetes-validations: [{rule: "self < duration('1h')", message: "ttl must be under 1h"}]}
              divisor: {type: integer, x-kubernetes-validations: [{rule: "100 / self > 1"}]}
              size: {type: integer${spec}}
`;
const gadget = (fields: string) => `apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g1
spec: {${fields}}
`;

test('CEL rules: a CRD whose rule reads a field its schema lacks, does not evaluate to a bool or calls a string method with the wrong argument type is refused as kube refuses it', async () => {
  const refused = await kubectl(
    kapi.url,
    ['apply', '-f', '-'],
    gadgets('', '            x-kubernetes-validations: [{rule: "self.sise <= 10"}, {rule: "self.size + 1"}, {rule: "string(self.size).startsWith(1)"}]'),
  );
  expect(refused.code).not.toBe(0);
  const rule = (i: number, text: string) =>
    `openAPIV3Schema.properties[spec].x-kubernetes-validations[${i}].rule: Invalid value: {"Rule":${goString(text)},"Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: `;
  // kube names the path spec.validation.openAPIV3Schema (one schema for every version); kapi spec.versions[0].schema.openAPIV3Schema
  expect(refused.stderr).toContain(`${rule(0, 'self.sise <= 10')}compilation failed: ERROR: <input>:1:5: undefined field 'sise'`);
  expect(refused.stderr).toContain(`${rule(1, 'self.size + 1')}cel expression must evaluate to a bool`);
  expect(refused.stderr).toContain(
    `${rule(2, 'string(self.size).startsWith(1)')}compilation failed: ERROR: <input>:1:29: found no matching overload for 'startsWith' applied to 'string.(int)'`,
  );
});

test('CEL rules: a rule whose evaluation fails refuses the object; formats are typed', async () => {
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], gadgets('', ''))).stderr).toBe('');
  await k('wait', '--for', 'condition=established', '--timeout=20s', 'crd/gadgets.example.com');
  const failing = await kubectl(kapi.url, ['apply', '-f', '-'], gadget('divisor: 0'));
  expect(failing.code).not.toBe(0);
  expect(failing.stderr).toContain('The Gadget "g1" is invalid: spec.divisor: Invalid value: "integer": division by zero evaluating rule: 100 / self > 1');
  const longTtl = await kubectl(kapi.url, ['apply', '-f', '-'], gadget('ttl: 90m'));
  expect(longTtl.stderr).toContain('The Gadget "g1" is invalid: spec.ttl: Invalid value: "90m": ttl must be under 1h');
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], gadget('ttl: 30m, size: 20'))).stdout.trim()).toBe('gadget.example.com/g1 created');
});

test('validation ratcheting: after the schema tightens, a finalizer is added to an old object; changing the offending field is refused', async () => {
  const tightened = gadgets(', maximum: 10', '            x-kubernetes-validations: [{rule: "self.size <= 10", message: "size must be at most 10"}]');
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], tightened)).stdout.trim()).toBe(
    'customresourcedefinition.apiextensions.k8s.io/gadgets.example.com configured',
  );
  const finalize = await k('patch', 'gadget', 'g1', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/cleanup"]}}');
  expect(finalize.stdout.trim()).toBe('gadget.example.com/g1 patched');
  // kube gives the ratcheted CEL error as a warning
  expect(finalize.stderr).toContain('Warning: spec: Invalid value: size must be at most 10');
  const grow = await k('patch', 'gadget', 'g1', '--type=merge', '-p', '{"spec":{"size":21}}');
  expect(grow.code).not.toBe(0);
  expect(grow.stderr).toContain('spec.size: Invalid value: 21: spec.size in body should be less than or equal to 10');
  expect(grow.stderr).toContain('spec: Invalid value: size must be at most 10');
  expect((await k('patch', 'gadget', 'g1', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]')).stdout.trim()).toBe(
    'gadget.example.com/g1 patched',
  );
  expect((await k('delete', 'crd', 'gadgets.example.com')).stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io "gadgets.example.com" deleted');
});

const gizmos = (tagBounds: string, partsMaxItems?: number) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations: [{rule: "self.tags.all(t, t.contains('gpu'))", message: "every tag names a gpu"}]
            properties:
              tags: {type: array${tagBounds}, items: {type: string${tagBounds ? ', maxLength: 16' : ''}}}
              parts:
                type: array
                ${partsMaxItems === undefined ? '' : `maxItems: ${partsMaxItems}`}
                items:
                  type: object
                  properties: {name: {type: string}}
                  x-kubernetes-validations:
${Array.from({ length: 11 }, (_, i) => `                  - {rule: "self.name != 'b${i}' && self.name != 'c${i}' && self.name != 'd${i}'"}`).join('\n')}
`;

test('CEL cost limits: a rule estimated over StaticEstimatedCostLimit, or rules over the CRD total, refuse the CRD; bounds make it acceptable', async () => {
  const hint = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
  const schema = 'spec.versions[0].schema.openAPIV3Schema';
  // unbounded tags of unbounded strings: each of ~1M tags traversed in full
  const expensive = await kubectl(kapi.url, ['apply', '-f', '-'], gizmos(''));
  expect(expensive.code).not.toBe(0);
  expect(expensive.stderr).toContain('The CustomResourceDefinition "gizmos.example.com" is invalid');
  expect(expensive.stderr).toContain(
    `${schema}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${hint}`,
  );
  // kube also lists the rule's 'contributed to estimated rule cost total' error; kapi's store keeps one error of a type per field
  expect(expensive.stderr).toContain(
    `${schema}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x`,
  );
  // bounded tags; each part rule costs 9, times the 1,048,576 items that fit in 3 MiB: under the rule limit, 11 of them over the CRD's
  const total = await kubectl(kapi.url, ['apply', '-f', '-'], gizmos(', maxItems: 10'));
  expect(total.code).not.toBe(0);
  expect(total.stderr).not.toContain('estimated rule cost exceeds budget');
  const parts = `${schema}.properties[spec].properties[parts].items.x-kubernetes-validations`;
  for (const i of [0, 1, 2, 3])
    expect(total.stderr).toContain(`${parts}[${i}].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`);
  expect(total.stderr).not.toContain(`${parts}[4].rule`);
  // 11 * 9,437,184 for the parts, and 10 * 11 + 3 for the tags
  expect(total.stderr).toContain(
    `${schema}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.038091x ${hint}`,
  );
  const bounded = await kubectl(kapi.url, ['apply', '-f', '-'], gizmos(', maxItems: 10', 100));
  expect(bounded.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/gizmos.example.com created');
  await k('wait', '--for', 'condition=established', '--timeout=20s', 'crd/gizmos.example.com');
  const gizmo = (spec: string) => kubectl(kapi.url, ['apply', '-f', '-'], `apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: z1}\nspec: ${spec}\n`);
  expect((await gizmo("{tags: ['gpu-a', 'cpu']}")).stderr).toContain('The Gizmo "z1" is invalid: spec: Invalid value: every tag names a gpu');
  expect((await gizmo('{tags: [gpu], parts: [{name: c7}]}')).stderr).toContain(
    `spec.parts[0]: Invalid value: failed rule: self.name != 'b7' && self.name != 'c7' && self.name != 'd7'`,
  );
  expect((await gizmo('{tags: [gpu], parts: [{name: e1}]}')).stdout.trim()).toBe('gizmo.example.com/z1 created');
  expect((await k('delete', 'crd', 'gizmos.example.com')).code).toBe(0);
});

const DOODADS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: doodads.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: doodads, singular: doodad, kind: Doodad}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - {rule: "self.?limits.?max.orValue(100) >= self.?size.orValue(0)", message: "size over the limit", fieldPath: ".size"}
            - {rule: "self.?size.orValue(0) != 13", messageExpression: '"size\\n13"', message: " size 13 is unlucky "}
            properties:
              size: {type: integer}
              limits: {type: object, properties: {max: {type: integer}}}
              steps:
                type: array
                maxItems: 100
                items: {type: integer}
                x-kubernetes-validations: [{rule: "self.all(i, v, i == 0 || v > self[i - 1])", message: "steps must increase"}]
              labels:
                type: object
                maxProperties: 16
                additionalProperties: {type: string, maxLength: 64}
                x-kubernetes-validations:
                - rule: "self.transformMapEntry(k, v, k.startsWith('x-'), {v: k}).size() <= 3"
                - rule: "self.transformList(k, v, k.startsWith('x-'), v).size() <= 2"
                  messageExpression: "self.size() > 10 ? 'too many x- labels among many' : 'too many x- labels'"
`;

test('CEL rules: optional syntax and two-variable comprehensions, accepted in a CRD and enforced with kube messages', async () => {
  const notString = await kubectl(kapi.url, ['apply', '-f', '-'], DOODADS.replace(`'"size\\n13"'`, 'self.size'));
  expect(notString.stderr).toContain(
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].messageExpression: Invalid value: {"Rule":"self.?size.orValue(0) != 13","Message":" size 13 is unlucky ","MessageExpression":"self.size",',
  );
  expect(notString.stderr).toContain('}: messageExpression must evaluate to a string');
  // A rule's own fields are checked before anything compiles (ValidateCustomResourceDefinitionOpenAPISchema): a level with such
  // errors is not compiled, one without is (steps: optionalOldSelf without oldSelf), and schema errors come first.
  const badFields = await kubectl(
    kapi.url,
    ['apply', '-f', '-'],
    DOODADS.replace('message: "size over the limit", fieldPath: ".size"', 'message: "size\\nover", reason: Bogus, fieldPath: ".sise"').replace(
      'message: "steps must increase"',
      'message: "steps must increase", optionalOldSelf: true',
    ),
  );
  const spec = 'spec.versions[0].schema.openAPIV3Schema.properties[spec]';
  expect(badFields.stderr).toContain(
    [
      'The CustomResourceDefinition "doodads.example.com" is invalid: ',
      `* ${spec}.x-kubernetes-validations[0].message: Invalid value: "size\\nover": must not contain line breaks`,
      `* ${spec}.x-kubernetes-validations[0].reason: Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `* ${spec}.x-kubernetes-validations[0].fieldPath: Invalid value: ".sise": must be a valid path`,
      `* ${spec}.properties[steps].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule\n`,
    ].join('\n'),
  );
  const created = await kubectl(kapi.url, ['apply', '-f', '-'], DOODADS);
  expect(created.stderr).toBe('');
  await k('wait', '--for', 'condition=established', '--timeout=20s', 'crd/doodads.example.com');
  const doodad = (name: string, spec: string) =>
    kubectl(kapi.url, ['apply', '-f', '-'], `apiVersion: example.com/v1\nkind: Doodad\nmetadata: {name: ${name}}\nspec: {${spec}}\n`);
  expect((await doodad('z1', 'size: 50, steps: [1, 2, 5], labels: {x-a: one, b: one}')).stdout.trim()).toBe('doodad.example.com/z1 created');
  const refused = await doodad('z2', 'size: 5, limits: {max: 3}, steps: [2, 2], labels: {x-a: same, x-b: same}');
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain('The Doodad "z2" is invalid: ');
  // reported at the rule's fieldPath under its node
  expect(refused.stderr).toContain('spec.size: Invalid value: size over the limit');
  expect(refused.stderr).toContain('spec.steps: Invalid value: steps must increase');
  // cel-go's runtime error of a second entry for one key
  expect(refused.stderr).toContain(
    `spec.labels: Invalid value: "object": insert failed: key same already exists evaluating rule: self.transformMapEntry(k, v, k.startsWith('x-'), {v: k}).size() <= 3`,
  );
  // a messageExpression result with a line break gives way to the rule's trimmed message
  expect((await doodad('z4', 'size: 13')).stderr).toContain('The Doodad "z4" is invalid: spec: Invalid value: size 13 is unlucky');
  const many = await doodad('z3', 'labels: {x-a: "1", x-b: "2", x-c: "3"}');
  expect(many.stderr).toContain('The Doodad "z3" is invalid: spec.labels: Invalid value: too many x- labels');
  expect((await k('delete', 'crd', 'doodads.example.com')).code).toBe(0);
});

const sprockets = (refused: boolean) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sprockets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: sprockets, singular: sprocket, kind: Sprocket}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              items:
                type: array
                items:
                  type: object
                  properties: {max: {type: integer}, size: {type: integer}}
                  x-kubernetes-validations: [{rule: "self.?max.orValue(100) >= self.?size.orValue(0)", message: "size over max"}]
              tags:
                type: array
                items: {type: string}
                x-kubernetes-validations: [{rule: "${refused ? "self.all(i, t, t.contains('gpu'))" : 'self.all(i, t, i < 100)'}"}]
              config:
                type: object
                properties: {attempts: {type: integer}}
                x-kubernetes-validations:
                - rule: "self.attempts >= 0"
                  ${refused ? `messageExpression: "'invalid attempts: ' + string(self.attempts)"` : 'message: "invalid attempts"'}
`;

test('CEL cost estimates of rules in the optional syntax and two-variable comprehensions, and of string() of a number, as kube makes them', async () => {
  const hint = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
  const props = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties';
  const refused = await kubectl(kapi.url, ['apply', '-f', '-'], sprockets(true));
  expect(refused.code).not.toBe(0);
  // each of ~1M unbounded tags traversed in full by the two-variable all()
  expect(refused.stderr).toContain(
    `${props}[tags].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${hint}`,
  );
  // kube's issue 124234: a number's string() has no size bound, so the concatenation's cost has none
  expect(refused.stderr).toContain(
    `${props}[config].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x ${hint}`,
  );
  // 7 per item, optional values typed as their fields, times the 1,048,576 items that fit in 3 MiB: under the limit
  expect(refused.stderr).not.toContain(`${props}[items].items.x-kubernetes-validations[0].rule: Forbidden: estimated`);
  const accepted = await kubectl(kapi.url, ['apply', '-f', '-'], sprockets(false));
  expect(accepted.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/sprockets.example.com created');
  await k('wait', '--for', 'condition=established', '--timeout=20s', 'crd/sprockets.example.com');
  const sprocket = await kubectl(
    kapi.url,
    ['apply', '-f', '-'],
    'apiVersion: example.com/v1\nkind: Sprocket\nmetadata: {name: s1}\nspec: {items: [{size: 2}, {max: 1, size: 2}]}\n',
  );
  expect(sprocket.stderr).toContain('The Sprocket "s1" is invalid: spec.items[1]: Invalid value: size over max');
  expect((await k('delete', 'crd', 'sprockets.example.com')).code).toBe(0);
});

const WHATSITS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: whatsits.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: whatsits, singular: whatsit, kind: Whatsit}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              tags:
                type: array
                maxItems: 20
                items: {type: string, maxLength: 32}
                x-kubernetes-validations:
                - {rule: "self.distinct().size() == self.size()", message: "tags must be unique"}
                - {rule: "self.sort() == self", message: "tags must be sorted"}
              ports:
                type: array
                maxItems: 10
                items: {type: object, required: [name, port], properties: {name: {type: string, maxLength: 16}, port: {type: integer}}}
                x-kubernetes-validations:
                - {rule: "self.sortBy(p, p.port).map(p, p.name) == self.map(p, p.name)", message: "ports must be in port order"}
                - {rule: "lists.range(10).all(i, i >= self.size() || self.slice(0, i).all(q, q.port != self[i].port))", message: "ports must differ"}
`;

test("CEL rules: ext.Lists (distinct, sort, sortBy, slice, lists.range) accepted and enforced; library calls refused for their argument or result types with kube's messages", async () => {
  const rulePath = (field: string, i: number) => `openAPIV3Schema.properties[spec].properties[${field}].x-kubernetes-validations[${i}]`;
  const refused = await kubectl(
    kapi.url,
    ['apply', '-f', '-'],
    WHATSITS.replace('"self.distinct().size() == self.size()"', '"self.distinct()"')
      .replace('"self.sort() == self"', '"self.indexOf(1) >= 0"')
      .replace('"ports must differ"', '"ports must differ", messageExpression: "self.map(p, p.name).sort()"'),
  );
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain(`${rulePath('tags', 0)}.rule: Invalid value: {"Rule":"self.distinct()",`);
  expect(refused.stderr).toContain('}: cel expression must evaluate to a bool');
  expect(refused.stderr).toContain(
    `}: compilation failed: ERROR: <input>:1:13: found no matching overload for 'indexOf' applied to 'list(string).(int)'\n | self.indexOf(1) >= 0\n | ............^`,
  );
  expect(refused.stderr).toContain(`${rulePath('ports', 1)}.messageExpression: Invalid value: `);
  expect(refused.stderr).toContain('}: messageExpression must evaluate to a string');

  expect((await kubectl(kapi.url, ['apply', '-f', '-'], WHATSITS)).stderr).toBe('');
  await k('wait', '--for', 'condition=established', '--timeout=20s', 'crd/whatsits.example.com');
  const whatsit = (name: string, spec: string) =>
    kubectl(kapi.url, ['apply', '-f', '-'], `apiVersion: example.com/v1\nkind: Whatsit\nmetadata: {name: ${name}}\nspec: {${spec}}\n`);
  const ok = await whatsit('w1', 'tags: [a, b], ports: [{name: http, port: 80}, {name: https, port: 443}]');
  expect(ok.stdout.trim()).toBe('whatsit.example.com/w1 created');
  // one failure a field: kapi's store reports one error of a type per field (docs/divergences.md)
  const unique = await whatsit('w2', 'tags: [b, a, a], ports: [{name: https, port: 443}, {name: http, port: 80}]');
  expect(unique.code).not.toBe(0);
  expect(unique.stderr).toContain('The Whatsit "w2" is invalid: ');
  expect(unique.stderr).toContain('spec.tags: Invalid value: tags must be unique');
  expect(unique.stderr).toContain('spec.ports: Invalid value: ports must be in port order');
  const sorted = await whatsit('w3', 'tags: [b, a], ports: [{name: http, port: 80}, {name: alt, port: 80}]');
  expect(sorted.stderr).toContain('spec.tags: Invalid value: tags must be sorted');
  expect(sorted.stderr).toContain('spec.ports: Invalid value: ports must differ');
  expect((await k('delete', 'crd', 'whatsits.example.com')).code).toBe(0);
});

const GADGETS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - {rule: "self.?limits.optMap(l, l.max).orValue(0) >= 0", message: "max must not be negative"}
            properties:
              name:
                type: string
                maxLength: 63
                x-kubernetes-validations:
                - {rule: "!format.dns1123Label().validate(self).hasValue()", message: "name must be a DNS label"}
              at:
                type: string
                format: date-time
                x-kubernetes-validations:
                - {rule: "self + duration('1h') > timestamp('2020-01-01T00:00:00Z') && int(self) > 0", message: "too early"}
              limits: {type: object, properties: {max: {type: integer}}}
              items: {type: array, maxItems: 8, items: {type: object, properties: {name: {type: string, maxLength: 63}}}}
`;

test("CEL rules: conversions, timestamp arithmetic, the format library and optMap typed, accepted and enforced; calls on an object or list no overload takes refused naming kube's type", async () => {
  const refused = await kubectl(
    kapi.url,
    ['apply', '-f', '-'],
    GADGETS.replace(
      '{rule: "self.?limits.optMap(l, l.max).orValue(0) >= 0", message: "max must not be negative"}',
      '{rule: "int(self.items) > 0"}\n            - {rule: "self.limits.size() > 0"}',
    ),
  );
  expect(refused.code).not.toBe(0);
  // kube names the rule's self type selfType and the clock's nanoseconds, so the number differs from write to write
  expect(refused.stderr).toMatch(/found no matching overload for 'int' applied to '\(list\(selfType\d+\.items\.@idx\)\)'/);
  expect(refused.stderr).toMatch(/found no matching overload for 'size' applied to 'selfType\d+\.limits\.\(\)'/);

  const unknownMapType = await kubectl(
    kapi.url,
    ['apply', '-f', '-'],
    GADGETS.replace('limits: {type: object, properties', 'limits: {type: object, x-kubernetes-map-type: loose, properties'),
  );
  expect(unknownMapType.stderr).toContain(
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[limits].x-kubernetes-map-type: Unsupported value: "loose": supported values: "atomic", "granular"',
  );

  expect((await kubectl(kapi.url, ['apply', '-f', '-'], GADGETS)).stderr).toBe('');
  await k('wait', '--for', 'condition=established', '--timeout=20s', 'crd/gadgets.example.com');
  const gadget = (name: string, spec: string) =>
    kubectl(kapi.url, ['apply', '-f', '-'], `apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: ${name}}\nspec: {${spec}}\n`);
  expect((await gadget('g1', "name: web, at: '2024-05-01T00:00:00Z', limits: {max: 2}")).stdout.trim()).toBe('gadget.example.com/g1 created');
  expect((await gadget('g2', "name: web, at: '2024-05-01T00:00:00Z'")).stdout.trim()).toBe('gadget.example.com/g2 created');
  const bad = await gadget('g3', "name: Not_A_Label, at: '2019-01-01T00:00:00Z', limits: {max: -1}");
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('The Gadget "g3" is invalid: ');
  expect(bad.stderr).toContain('name must be a DNS label');
  expect(bad.stderr).toContain('max must not be negative');
  expect(bad.stderr).toContain('too early');
  expect((await k('delete', 'crd', 'gadgets.example.com')).code).toBe(0);
});

test('kubectl delete crd removes its resources and stops serving them', async () => {
  expect((await k('delete', 'crd', 'widgets.example.com')).stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted');
  // kubectl's discovery cache still knows the resource; the server no longer serves it.
  const gone = await k('get', 'widgets');
  expect(gone.code).not.toBe(0);
  expect(gone.stderr).toContain('the server could not find the requested resource');
  expect((await k('get', 'crd')).stderr.trim()).toBe('No resources found');
});
