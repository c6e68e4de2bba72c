import { describe, expect, it } from 'vitest';
import { ModelIndex, type ObjectNode } from '../model/index.js';
import { tempTree } from '../temp-tree.testing.js';
import { LoadError, loadSchemas } from './index.js';

const CRDS = new URL('../testdata/crds/', import.meta.url).pathname;

function load(files: Record<string, string>) {
  const dir = tempTree(files);
  return loadSchemas({ inputs: [dir], cwd: dir });
}

function loadError(files: Record<string, string>): LoadError {
  try {
    load(files);
  } catch (e) {
    if (e instanceof LoadError) return e;
    throw e;
  }
  throw new Error('expected a LoadError');
}

const HEADER = 'group: example.svc.io\nversion: v1\ndefinitions:\n';

describe('svckit schema files', () => {
  it('adds apiVersion and kind literals to kinds and a list kind to resources', () => {
    const model = load({
      'meta.yaml':
        'group: meta.svc.io\nversion: v1\ndefinitions:\n  ListMeta:\n    type: object\n    properties:\n      continue: {type: string}\n',
      'x.yaml': `${HEADER}  Widget:\n    type: object\n    x-svc-kind: Widget\n    x-svc-resource: {plural: widgets, scope: Namespaced}\n    properties:\n      size: {type: integer, format: int32, x-svc-proto: 2}\n`,
    });
    const index = new ModelIndex(model);
    const widget = index.resolve({ group: 'example.svc.io', version: 'v1', name: 'Widget' });
    const fields = (widget.node as ObjectNode).fields;
    expect(fields.map((f) => f.name)).toEqual(['apiVersion', 'kind', 'size']);
    expect(fields[0]?.type.constraints?.enum).toEqual(['example.svc.io/v1']);
    expect(fields[2]?.protoTag).toBe(2);
    expect(widget.kind?.resource).toMatchObject({ plural: 'widgets', scope: 'Namespaced', singular: 'widget', custom: false });
    expect(widget.kind?.resource?.verbs).toContain('deletecollection');
    const list = index.resolve({ group: 'example.svc.io', version: 'v1', name: 'WidgetList' });
    expect(list.kind?.kind).toBe('WidgetList');
    expect((list.node as ObjectNode).fields.map((f) => f.name)).toEqual(['apiVersion', 'kind', 'metadata', 'items']);
  });

  it('reads the kind behaviour a resource declares', () => {
    const resource =
      '{plural: widgets, scope: Namespaced, subresources: [status, approval], selectableFields: [spec.color], nameValidation: dns1123-label, generation: true, subresourceHandlers: {approval: approve}, hooks: [audit-trail]}';
    const model = load({
      'x.yaml': `${HEADER}  Widget:\n    type: object\n    x-svc-kind: Widget\n    x-svc-resource: ${resource}\n  WidgetReview:\n    type: object\n    x-svc-kind: WidgetReview\n    x-svc-resource: {plural: widgetreviews, scope: Cluster, verbs: [create], virtual: widget-review}\n`,
    });
    const index = new ModelIndex(model);
    expect(index.resolve({ group: 'example.svc.io', version: 'v1', name: 'Widget' }).kind?.resource).toMatchObject({
      selectableFields: ['spec.color'],
      nameValidation: 'dns1123-label',
      generation: true,
      subresourceHandlers: { approval: { handler: 'approve' } },
      hooks: ['audit-trail'],
    });
    const review = index.resolve({ group: 'example.svc.io', version: 'v1', name: 'WidgetReview' }).kind?.resource;
    expect(review).toMatchObject({ virtual: 'widget-review', generation: false, selectableFields: [], hooks: [] });
    expect(review?.nameValidation).toBeUndefined();
  });

  it('refuses a name rule it does not know and a handler for a subresource the resource lacks', () => {
    const kind = (resource: string) => ({
      'x.yaml': `${HEADER}  Widget:\n    type: object\n    x-svc-kind: Widget\n    x-svc-resource: ${resource}\n`,
    });
    expect(loadError(kind('{plural: widgets, scope: Cluster, nameValidation: dns}')).message).toMatch(
      /nameValidation: expected dns1123-subdomain, dns1123-label or path-segment, found string "dns"/,
    );
    expect(
      loadError(kind('{plural: widgets, scope: Cluster, subresources: [status], subresourceHandlers: {scale: scaler}}')).message,
    ).toMatch(/scale is not one of the resource's subresources \(status\)/);
  });

  it('reads a built-in workload replica paths, which need the scale subresource', () => {
    const kind = (resource: string) => ({
      'x.yaml': `${HEADER}  Widget:\n    type: object\n    x-svc-kind: Widget\n    x-svc-resource: ${resource}\n`,
    });
    const paths = '{specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .spec.selector}';
    const model = load(kind(`{plural: widgets, scope: Namespaced, subresources: [status, scale], scale: ${paths}}`));
    expect(new ModelIndex(model).resolve({ group: 'example.svc.io', version: 'v1', name: 'Widget' }).kind?.resource?.scale).toEqual({
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.spec.selector',
    });
    expect(loadError(kind(`{plural: widgets, scope: Namespaced, subresources: [status], scale: ${paths}}`)).message).toMatch(
      /scale paths need the scale subresource/,
    );
    expect(
      loadError(kind('{plural: widgets, scope: Namespaced, subresources: [scale], scale: {specReplicasPath: .spec.replicas}}')).message,
    ).toMatch(/expected specReplicasPath and statusReplicasPath/);
  });

  it('reads a subresource request kind and verbs, and refuses a kind or verb it cannot read', () => {
    const kind = (declared: string) => ({
      'x.yaml': `${HEADER}  Widget:\n    type: object\n    x-svc-kind: Widget\n    x-svc-resource: {plural: widgets, scope: Namespaced, subresources: [review], subresourceHandlers: {review: ${declared}}}\n`,
    });
    const model = load(kind('{handler: widget-review, kind: example.svc.io/v1 WidgetReview, verbs: [create]}'));
    expect(new ModelIndex(model).resolve({ group: 'example.svc.io', version: 'v1', name: 'Widget' }).kind?.resource).toMatchObject({
      subresourceHandlers: { review: { handler: 'widget-review', kind: 'example.svc.io/v1 WidgetReview', verbs: ['create'] } },
    });
    expect(loadError(kind('{handler: widget-review, kind: WidgetReview}')).message).toMatch(/kind: expected "<apiVersion> <Kind>"/);
    expect(loadError(kind('{handler: widget-review, verbs: [post]}')).message).toMatch(
      /verbs: post is not one of get, create, update, patch/,
    );
    expect(loadError(kind('{kind: v1 Widget}')).message).toMatch(/handler: expected a handler name/);
  });

  it('inlines allOf embeddings in front of the own fields', () => {
    const model = load({
      'x.yaml': `${HEADER}  Base:\n    type: object\n    x-svc-validations: [{rule: 'self.a != "x"'}]\n    properties:\n      a: {type: string}\n  Outer:\n    type: object\n    allOf: [{$ref: '#Base'}]\n    x-svc-validations: [{rule: 'self.b'}]\n    properties:\n      b: {type: boolean}\n`,
    });
    const outer = new ModelIndex(model).resolve({ group: 'example.svc.io', version: 'v1', name: 'Outer' });
    expect((outer.node as ObjectNode).fields.map((f) => f.name)).toEqual(['a', 'b']);
    expect(outer.node.validations?.map((v) => v.rule)).toEqual(['self.a != "x"', 'self.b']);
  });

  it('maps formats and markers to model nodes', () => {
    const model = load({
      'x.yaml': `${HEADER}  T:\n    type: object\n    properties:\n      d: {type: string, format: duration}\n      q: {type: string, format: quantity}\n      b: {type: string, format: byte}\n      t: {type: string, format: date-time}\n      i: {x-svc-int-or-string: true}\n      r: {x-svc-raw-extension: true}\n      m: {type: object, additionalProperties: {type: string}, x-svc-map-type: granular}\n      l:\n        type: array\n        x-svc-list-type: map\n        x-svc-list-map-keys: [name]\n        items: {type: object, required: [name], properties: {name: {type: string}}}\n`,
    });
    const t = new ModelIndex(model).resolve({ group: 'example.svc.io', version: 'v1', name: 'T' });
    const kinds = Object.fromEntries((t.node as ObjectNode).fields.map((f) => [f.name, f.type.kind]));
    expect(kinds).toEqual({ d: 'duration', q: 'quantity', b: 'bytes', t: 'time', i: 'int-or-string', r: 'raw', m: 'map', l: 'list' });
    const l = (t.node as ObjectNode).fields.find((f) => f.name === 'l')!.type;
    expect(l).toMatchObject({ listType: 'map', listMapKeys: ['name'] });
  });

  it('reads value validations, strict about the keys of a branch', () => {
    const model = load({
      'x.yaml': `${HEADER}  Pair:\n    type: object\n    properties:\n      a: {type: string}\n      b: {type: string}\n    oneOf: [{required: [a]}, {required: [b]}]\n`,
    });
    const pair = new ModelIndex(model).resolve({ group: 'example.svc.io', version: 'v1', name: 'Pair' });
    expect(pair.node.valueValidation).toEqual({ oneOf: [{ required: ['a'] }, { required: ['b'] }] });
    const e = loadError({
      'x.yaml': `${HEADER}  Pair:\n    type: object\n    properties:\n      a: {type: string}\n    anyOf: [{minLenght: 1}]\n`,
    });
    expect([e.path, e.problem]).toEqual(['.definitions.Pair.anyOf[0].minLenght', 'unknown key "minLenght" in a value validation']);
  });

  it('rejects an unknown key with the file and JSON path', () => {
    const e = loadError({ 'x.yaml': `${HEADER}  T:\n    type: object\n    properties:\n      a: {type: string, x-svc-list-typ: set}\n` });
    expect(e.file).toBe('x.yaml');
    expect(e.path).toBe('.definitions.T.properties.a["x-svc-list-typ"]');
    expect(e.message).toContain('unknown key');
  });

  it('names a dangling reference and what the target group/version has', () => {
    const e = loadError({
      'x.yaml': `${HEADER}  T:\n    type: object\n    properties:\n      a: {$ref: '#Missing'}\n  U:\n    type: string\n`,
    });
    expect(e.path).toBe('.definitions.T.properties.a.$ref');
    expect(e.message).toMatch(/unknown type example\.svc\.io\/v1#Missing; example\.svc\.io\/v1 has T, U/);
  });

  it('reports YAML syntax errors with line and column', () => {
    const e = loadError({ 'x.yaml': `${HEADER}  T:\n    type: [object\n` });
    expect(e.file).toMatch(/^x\.yaml:\d+:\d+$/);
    expect(e.message).toContain('not valid YAML');
  });

  it('rejects duplicate keys', () => {
    const e = loadError({ 'x.yaml': `${HEADER}  T:\n    type: string\n    type: integer\n` });
    expect(e.message).toContain('not valid YAML');
  });

  it('rejects list map keys that are not fields of the items', () => {
    const e = loadError({
      'x.yaml': `${HEADER}  T:\n    type: object\n    properties:\n      l:\n        type: array\n        x-svc-list-type: map\n        x-svc-list-map-keys: [id]\n        items: {type: object, properties: {name: {type: string}}}\n`,
    });
    expect(e.message).toContain('list map key "id" is not a field of the items (fields: name)');
  });

  it('rejects a kind stored in two versions', () => {
    const kind = (v: string) =>
      `group: example.svc.io\nversion: ${v}\ndefinitions:\n  W:\n    type: object\n    x-svc-kind: W\n    x-svc-resource: {plural: ws, scope: Cluster, storage: true}\n    properties: {}\n`;
    const e = loadError({ 'v1.yaml': kind('v1'), 'v2.yaml': kind('v2') });
    expect(e.message).toContain('exactly one version is stored');
  });

  it('rejects a bad pattern and a bad proto number', () => {
    expect(loadError({ 'x.yaml': `${HEADER}  T:\n    type: string\n    pattern: '[a-'\n` }).message).toContain(
      'not a valid regular expression: error parsing regexp: missing closing ]: `[a-`',
    );
    // RE2, not JavaScript: lookahead is refused, flags mid-pattern are not.
    expect(loadError({ 'x.yaml': `${HEADER}  T:\n    type: string\n    pattern: 'a(?=b)'\n` }).message).toContain(
      'not a valid regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
    );
    expect(
      loadError({ 'x.yaml': `${HEADER}  T:\n    type: object\n    properties:\n      a: {type: string, x-svc-proto: 0}\n` }).message,
    ).toContain('positive integer field number');
  });
});

describe('CustomResourceDefinitions', () => {
  it('loads a folder of CRDs with x-kubernetes-* markers as aliases', () => {
    const model = loadSchemas({ inputs: [CRDS] });
    const index = new ModelIndex(model);
    const own = model.groupVersions.filter((gv) => !gv.external);
    expect(own.map((gv) => `${gv.group}/${gv.version}`)).toEqual([
      'acme.pki.example.io/v1',
      'gateway.example.io/v1',
      'gateway.example.io/v1alpha1',
      'gateway.example.io/v1beta1',
      'pki.example.io/v1',
      'traffic.example.io/v1',
    ]);
    const kinds = index
      .kinds()
      .filter((t) => t.id.group.endsWith('example.io'))
      .filter((t) => !t.kind?.kind.endsWith('List'))
      .map((t) => `${t.id.version}/${t.kind?.kind}`)
      .sort();
    expect(kinds).toEqual([
      'v1/BackendTLSPolicy',
      'v1/Certificate',
      'v1/ClusterIssuer',
      'v1/GRPCRoute',
      'v1/HTTPRoute',
      'v1/Issuer',
      'v1/Order',
      'v1/RoutePolicy',
      'v1alpha1/ListenerSet',
      'v1beta1/HTTPRoute',
    ]);
    expect(own.find((gv) => gv.version === 'v1beta1')?.lifecycle).toEqual({
      warning: 'gateway.example.io/v1beta1 HTTPRoute is deprecated; use gateway.example.io/v1 HTTPRoute',
    });
    const listenerSet = index.resolve({ group: 'gateway.example.io', version: 'v1alpha1', name: 'ListenerSet' });
    expect(listenerSet.kind?.resource?.subresources).toEqual(['scale', 'status']);
    const lsSpec = (listenerSet.node as ObjectNode).fields.find((f) => f.name === 'spec')!.type as ObjectNode;
    expect(lsSpec.fields.find((f) => f.name === 'port')?.type).toMatchObject({ kind: 'int-or-string' });
    expect(lsSpec.fields.find((f) => f.name === 'template')?.type).toMatchObject({ embeddedResource: true, preserveUnknown: true });
    const issuer = index.resolve({ group: 'pki.example.io', version: 'v1', name: 'ClusterIssuer' });
    expect(issuer.kind?.resource).toMatchObject({ scope: 'Cluster', shortNames: ['ciss'], categories: ['pki'] });
    const cert = index.resolve({ group: 'pki.example.io', version: 'v1', name: 'Certificate' });
    expect(cert.kind?.resource).toMatchObject({
      plural: 'certificates',
      scope: 'Namespaced',
      custom: true,
      storage: true,
      subresources: ['status'],
    });
    expect(cert.kind?.resource?.shortNames).toEqual(['cert', 'certs']);
    expect(cert.kind?.resource?.printerColumns.map((c) => c.name)).toContain('Ready');
    // metadata is the shared ObjectMeta, loaded from the built-in schemas as an external group/version.
    expect((cert.node as ObjectNode).fields.find((f) => f.name === 'metadata')?.type).toMatchObject({
      kind: 'ref',
      target: { name: 'ObjectMeta' },
    });
    expect(model.groupVersions.find((gv) => gv.group === 'meta.svc.io')?.external).toBe(true);
    // x-kubernetes-list-type is read as x-svc-list-type.
    const spec = (cert.node as ObjectNode).fields.find((f) => f.name === 'spec')!.type as ObjectNode;
    expect(spec.fields.find((f) => f.name === 'dnsNames')?.type).toMatchObject({ kind: 'list', listType: 'set' });
    expect(spec.fields.find((f) => f.name === 'issuerRef')?.type).toMatchObject({ structType: 'atomic' });
    const status = (cert.node as ObjectNode).fields.find((f) => f.name === 'status')!.type as ObjectNode;
    expect(status.fields.find((f) => f.name === 'conditions')?.type).toMatchObject({
      kind: 'list',
      listType: 'map',
      listMapKeys: ['type'],
    });
  });

  it("reads a version's selectableFields as field selector paths; custom resources track generation", () => {
    const crd = (fields: string) =>
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: a.svc.io\n  scope: Cluster\n  names: {kind: A, plural: as}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    selectableFields: ${fields}\n    schema:\n      openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {color: {type: string}}}}}\n`;
    const model = load({ 'crd.yaml': crd('[{jsonPath: .spec.color}]') });
    expect(new ModelIndex(model).resolve({ group: 'a.svc.io', version: 'v1', name: 'A' }).kind?.resource).toMatchObject({
      selectableFields: ['spec.color'],
      generation: true,
    });
    expect(loadError({ 'crd.yaml': crd('[{jsonPath: "spec[0]"}]') }).path).toBe('.spec.versions[0].selectableFields[0]');
  });

  it('rejects a CRD version without a schema, naming the path', () => {
    const e = loadError({
      'crd.yaml':
        'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: a.svc.io\n  scope: Cluster\n  names: {kind: A, plural: as}\n  versions:\n  - name: v1\n    served: true\n',
    });
    expect(e.path).toBe('.spec.versions[0].schema.openAPIV3Schema');
  });

  describe('inline allOf/anyOf/oneOf/not are value validations, under the structural-schema rules', () => {
    const crd = (spec: string) =>
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: a.svc.io\n  scope: Cluster\n  names: {kind: A, plural: as}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec: ${spec}\n`;
    const ROOT = '.spec.versions[0].schema.openAPIV3Schema.properties.spec';
    const spec = (model: ReturnType<typeof load>) =>
      (new ModelIndex(model).resolve({ group: 'a.svc.io', version: 'v1', name: 'A' }).node as ObjectNode).fields.find(
        (f) => f.name === 'spec',
      )!.type as ObjectNode;

    it("reads istio's spellings onto the structural node, which keeps its fields and type", () => {
      const node = spec(
        load({
          'crd.yaml': crd(
            '{type: object, properties: {file: {type: string}, secret: {type: string}, port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}}, oneOf: [{not: {anyOf: [{required: [file]}, {required: [secret]}]}}, {required: [file]}, {required: [secret]}], allOf: [{properties: {file: {minLength: 1}}}]}',
          ),
        }),
      );
      expect(node.kind).toBe('object');
      expect(node.fields.map((f) => f.name)).toEqual(['file', 'secret', 'port']);
      expect(node.valueValidation).toEqual({
        allOf: [{ properties: { file: { constraints: { minLength: 1 } } } }],
        oneOf: [{ not: { anyOf: [{ required: ['file'] }, { required: ['secret'] }] } }, { required: ['file'] }, { required: ['secret'] }],
      });
      // int-or-string's anyOf is its structure, not a validation.
      const port = node.fields.find((f) => f.name === 'port')!.type;
      expect(port.kind).toBe('int-or-string');
      expect(port.valueValidation).toBeUndefined();
      // Upstream skips that spelling without the marker too (isIntOrStringAnyOfPattern), first in an allOf as well.
      const plain = spec(
        load({
          'crd.yaml': crd(
            '{type: object, properties: {a: {type: string, anyOf: [{type: integer}, {type: string}]}, b: {type: string, allOf: [{anyOf: [{type: integer}, {type: string}]}, {maxLength: 3}]}}}',
          ),
        }),
      );
      expect(plain.fields.map((f) => f.type.valueValidation)).toEqual([undefined, { allOf: [{ constraints: { maxLength: 3 } }] }]);
    });

    it("refuses what makes a branch non-structural, at its path, with upstream's message", () => {
      const typed = loadError({
        'crd.yaml': crd('{type: object, properties: {a: {type: string}}, anyOf: [{properties: {a: {type: string}}}]}'),
      });
      expect(typed.path).toBe(`${ROOT}.anyOf[0].properties.a.type`);
      expect(typed.problem).toBe('Forbidden: must be empty to be structural');
      const nullable = loadError({ 'crd.yaml': crd('{type: object, not: {nullable: true}}') });
      expect([nullable.path, nullable.problem]).toEqual([`${ROOT}.not.nullable`, 'Forbidden: must be false to be structural']);
      const listType = loadError({ 'crd.yaml': crd('{type: object, allOf: [{x-kubernetes-list-type: set}]}') });
      expect([listType.path, listType.problem]).toEqual([
        `${ROOT}.allOf[0]["x-svc-list-type"]`,
        'Forbidden: must be undefined to be structural',
      ]);
      const missing = loadError({
        'crd.yaml': crd('{type: object, properties: {a: {type: string}}, oneOf: [{properties: {b: {minLength: 1}}}]}'),
      });
      expect([missing.path, missing.problem]).toEqual([
        `${ROOT}.properties.b`,
        `Required value: because it is defined in ${ROOT}.oneOf[0].properties.b`,
      ]);
    });
  });

  describe('list markers follow the structural-schema rules', () => {
    const crd = (list: string) =>
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: a.svc.io\n  scope: Cluster\n  names: {kind: A, plural: as}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              l: ${list}\n`;
    const ROOT = '.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.l';

    it('rejects a list map key that is an object or a list, naming the key', () => {
      const objectKey = loadError({
        'crd.yaml': crd(
          '{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [ref], items: {type: object, required: [ref], properties: {ref: {type: object, properties: {name: {type: string}}}}}}',
        ),
      });
      expect(objectKey.file).toMatch(/crd\.yaml$/);
      expect(objectKey.path).toBe(`${ROOT}.items.properties.ref.type`);
      expect(objectKey.problem).toBe('Invalid value: "object": must be a scalar type if parent array\'s x-kubernetes-list-type is map');
      const listKey = loadError({
        'crd.yaml': crd(
          '{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [ports], items: {type: object, required: [ports], properties: {ports: {type: array, items: {type: integer}}}}}',
        ),
      });
      expect(listKey.problem).toContain('"array": must be a scalar type');
    });

    it('rejects a set of objects unless the items are atomic, and accepts scalar and atomic sets', () => {
      const e = loadError({
        'crd.yaml': crd('{type: array, x-kubernetes-list-type: set, items: {type: object, properties: {a: {type: string}}}}'),
      });
      expect(e.path).toBe(`${ROOT}.items.x-kubernetes-map-type`);
      expect(e.problem).toContain('must be atomic as item of a list with x-kubernetes-list-type=set');
      expect(() => load({ 'crd.yaml': crd('{type: array, x-kubernetes-list-type: set, items: {type: string}}') })).not.toThrow();
      expect(() =>
        load({
          'crd.yaml': crd(
            '{type: array, x-kubernetes-list-type: set, items: {type: object, x-kubernetes-map-type: atomic, properties: {a: {type: string}}}}',
          ),
        }),
      ).not.toThrow();
    });
  });
});
