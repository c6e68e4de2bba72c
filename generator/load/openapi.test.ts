import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Field, Model, NamedType, TypeNode } from '../model/index.js';
import { ModelIndex, apiVersionOf } from '../model/index.js';
import { type LoadError, isLoadError, loadSchemas } from './index.js';

/** Errors name fixtures relative to their directory, so assertions do not depend on the cwd. */
const FIXTURES = fileURLToPath(new URL('./testdata/openapi/', import.meta.url));

function load(fixture: string): ModelIndex {
  return new ModelIndex(loadSchemas({ inputs: [fixture], cwd: FIXTURES }));
}

function loadError(fixture: string): LoadError {
  try {
    loadSchemas({ inputs: [fixture], cwd: FIXTURES });
  } catch (error) {
    if (isLoadError(error)) return error;
    throw error;
  }
  throw new Error(`${fixture} loaded without error`);
}

function type(index: ModelIndex, group: string, version: string, name: string): NamedType {
  const t = index.type({ group, version, name });
  if (!t) throw new Error(`no type ${apiVersionOf(group, version)}#${name}`);
  return t;
}

function field(t: NamedType, name: string): Field {
  if (t.node.kind !== 'object') throw new Error(`${t.id.name} is a ${t.node.kind}`);
  const f = t.node.fields.find((x) => x.name === name);
  if (!f) throw new Error(`${t.id.name} has no field ${name}`);
  return f;
}

function apiVersions(model: Model): string[] {
  return model.groupVersions.map((gv) => apiVersionOf(gv.group, gv.version));
}

function typeNames(index: ModelIndex, group: string, version: string): string[] {
  return index.groupVersion(group, version)?.types.map((t) => t.id.name) ?? [];
}

/** Every node of the model, for "this never appears anywhere" checks. */
function allNodes(model: Model): TypeNode[] {
  const out: TypeNode[] = [];
  const visit = (node: TypeNode): void => {
    out.push(node);
    if (node.kind === 'object') node.fields.forEach((f) => visit(f.type));
    if (node.kind === 'map') visit(node.values);
    if (node.kind === 'list') visit(node.items);
  };
  model.groupVersions.forEach((gv) => gv.types.forEach((t) => visit(t.node)));
  return out;
}

describe('OpenAPI v3 document in the shape of the kube-apiserver /openapi/v3/api/v1', () => {
  const index = load('core-v1.openapi.json');

  it('maps the core package to the core group and the meta package to meta.svc.io', () => {
    expect(apiVersions(index.model)).toEqual(['v1', 'meta.svc.io/v1']);
    for (const gv of index.model.groupVersions) expect(gv.sources).toEqual(['core-v1.openapi.json']);
    expect(typeNames(index, '', 'v1')).toEqual([
      'Container',
      'ContainerPort',
      'HTTPGetAction',
      'Namespace',
      'NamespaceList',
      'Pod',
      'PodIP',
      'PodList',
      'PodSpec',
      'PodStatus',
      'Probe',
      'ResourceRequirements',
    ]);
    expect(typeNames(index, 'meta.svc.io', 'v1')).toEqual(['APIResourceList', 'ListMeta', 'ManagedFieldsEntry', 'ObjectMeta']);
  });

  it('reads kinds from x-kubernetes-group-version-kind', () => {
    expect(type(index, '', 'v1', 'Pod').kind).toMatchObject({ kind: 'Pod', apiVersion: 'v1', listKind: 'PodList' });
    expect(type(index, '', 'v1', 'PodList').kind).toMatchObject({ kind: 'PodList', apiVersion: 'v1' });
    expect(type(index, '', 'v1', 'PodList').kind?.resource).toBeUndefined();
    // A meta type whose gvk says core: it stays in meta.svc.io, its apiVersion is what the gvk says.
    expect(type(index, 'meta.svc.io', 'v1', 'APIResourceList').kind).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1' });
    expect(type(index, '', 'v1', 'PodSpec').kind).toBeUndefined();
  });

  it('derives a namespaced resource with its subresources from the pod paths', () => {
    expect(type(index, '', 'v1', 'Pod').kind?.resource).toEqual({
      plural: 'pods',
      singular: 'pod',
      scope: 'Namespaced',
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
      subresources: ['eviction', 'proxy', 'status'],
      shortNames: [],
      categories: [],
      printerColumns: [],
      served: true,
      storage: false,
      conversion: [],
      custom: false,
      selectableFields: [],
      generation: false,
      subresourceHandlers: {},
      hooks: [],
    });
  });

  it('derives a cluster-scoped resource from /api/v1/namespaces/{name}', () => {
    expect(type(index, '', 'v1', 'Namespace').kind?.resource).toMatchObject({
      plural: 'namespaces',
      scope: 'Cluster',
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      subresources: ['finalize', 'status'],
      custom: false,
    });
  });

  it('replaces refs to Quantity, IntOrString, Time and FieldsV1 by their nodes', () => {
    expect(field(type(index, '', 'v1', 'ResourceRequirements'), 'limits').type).toEqual({
      kind: 'map',
      values: { kind: 'quantity' },
      description: 'Limits describes the maximum amount of compute resources allowed.',
    });
    expect(field(type(index, '', 'v1', 'PodSpec'), 'overhead').type).toMatchObject({ kind: 'map', values: { kind: 'quantity' } });
    expect(field(type(index, '', 'v1', 'HTTPGetAction'), 'port').type).toEqual({
      kind: 'int-or-string',
      description: 'Name or number of the port to access on the container.',
    });
    expect(field(type(index, '', 'v1', 'PodStatus'), 'startTime').type).toMatchObject({ kind: 'time', format: 'date-time' });
    // `default: {}` (Go's zero struct) means nothing on a timestamp and is dropped.
    expect(field(type(index, 'meta.svc.io', 'v1', 'ObjectMeta'), 'creationTimestamp').type).toEqual({
      kind: 'time',
      format: 'date-time',
      description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    });
    expect(field(type(index, 'meta.svc.io', 'v1', 'ManagedFieldsEntry'), 'fieldsV1').type.kind).toBe('raw');
    const names = index.model.groupVersions.flatMap((gv) => gv.types.map((t) => t.id.name));
    for (const gone of ['Quantity', 'IntOrString', 'Time', 'FieldsV1']) expect(names).not.toContain(gone);
    expect(allNodes(index.model).filter((n) => n.kind === 'ref' && ['Quantity', 'IntOrString', 'Time'].includes(n.target.name))).toEqual(
      [],
    );
  });

  it('reads an allOf-wrapped ref as a ref carrying the use site description', () => {
    expect(field(type(index, '', 'v1', 'Container'), 'resources').type).toEqual({
      kind: 'ref',
      target: { group: '', version: 'v1', name: 'ResourceRequirements' },
      description: 'Compute Resources required by this container.',
      default: {},
    });
    expect(field(type(index, '', 'v1', 'Pod'), 'metadata').type).toMatchObject({
      kind: 'ref',
      target: { group: 'meta.svc.io', version: 'v1', name: 'ObjectMeta' },
    });
  });

  it('keeps list, map and strategic-merge markers', () => {
    const ports = field(type(index, '', 'v1', 'Container'), 'ports');
    expect(ports.type).toMatchObject({
      kind: 'list',
      listType: 'map',
      listMapKeys: ['containerPort', 'protocol'],
      items: { kind: 'ref', target: { group: '', version: 'v1', name: 'ContainerPort' } },
    });
    expect(ports.patchStrategy).toBe('merge');
    expect(ports.patchMergeKey).toBe('containerPort');
    expect(field(type(index, '', 'v1', 'PodSpec'), 'containers').type).toMatchObject({ listType: 'map', listMapKeys: ['name'] });
    expect(field(type(index, '', 'v1', 'PodSpec'), 'nodeSelector').type).toMatchObject({ kind: 'map', mapType: 'atomic' });
    expect(field(type(index, 'meta.svc.io', 'v1', 'ObjectMeta'), 'managedFields').type).toMatchObject({ kind: 'list', listType: 'atomic' });
  });

  it('lets the linker give kinds apiVersion and kind', () => {
    const pod = type(index, '', 'v1', 'Pod');
    expect(field(pod, 'apiVersion').type).toMatchObject({ constraints: { enum: ['v1'] } });
    expect(field(pod, 'kind').type).toMatchObject({ constraints: { enum: ['Pod'] } });
  });
});

describe('OpenAPI v2 (swagger) document', () => {
  const index = load('apps-v1.swagger.json');

  it('maps packages by their kinds, and packages without kinds by their name', () => {
    expect(apiVersions(index.model)).toEqual(['apps/v1', 'autoscaling/v1', 'io.k8s.api.core/v1', 'meta.svc.io/v1']);
    expect(typeNames(index, 'apps', 'v1')).toEqual([
      'Deployment',
      'DeploymentList',
      'DeploymentSpec',
      'DeploymentStatus',
      'DeploymentStrategy',
      'RollingUpdateDeployment',
    ]);
    expect(typeNames(index, 'io.k8s.api.core', 'v1')).toEqual(['PodTemplateSpec']);
    expect(typeNames(index, 'meta.svc.io', 'v1')).toEqual(['DeleteOptions', 'LabelSelector', 'ListMeta', 'ObjectMeta', 'Status']);
  });

  it('derives the deployments resource, with the scale subresource of another kind', () => {
    const deployment = type(index, 'apps', 'v1', 'Deployment');
    expect(deployment.kind).toMatchObject({ kind: 'Deployment', apiVersion: 'apps/v1', listKind: 'DeploymentList' });
    expect(deployment.kind?.resource).toMatchObject({
      plural: 'deployments',
      singular: 'deployment',
      scope: 'Namespaced',
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      subresources: ['scale', 'status'],
      custom: false,
    });
  });

  it('makes kinds of single-gvk schemas only; kinds without paths have no resource', () => {
    expect(type(index, 'autoscaling', 'v1', 'Scale').kind).toEqual({ kind: 'Scale', apiVersion: 'autoscaling/v1', listKind: 'ScaleList' });
    expect(type(index, 'meta.svc.io', 'v1', 'Status').kind).toEqual({ kind: 'Status', apiVersion: 'v1', listKind: 'StatusList' });
    expect(type(index, 'meta.svc.io', 'v1', 'DeleteOptions').kind).toBeUndefined();
  });

  it('reads $ref with a sibling description and replaces IntOrString and Time', () => {
    expect(field(type(index, 'apps', 'v1', 'Deployment'), 'spec').type).toEqual({
      kind: 'ref',
      target: { group: 'apps', version: 'v1', name: 'DeploymentSpec' },
      description: 'Specification of the desired behavior of the Deployment.',
    });
    expect(field(type(index, 'apps', 'v1', 'DeploymentSpec'), 'template').type).toMatchObject({
      target: { group: 'io.k8s.api.core', version: 'v1', name: 'PodTemplateSpec' },
    });
    expect(field(type(index, 'apps', 'v1', 'RollingUpdateDeployment'), 'maxSurge').type.kind).toBe('int-or-string');
    expect(field(type(index, 'meta.svc.io', 'v1', 'ObjectMeta'), 'deletionTimestamp').type).toMatchObject({
      kind: 'time',
      format: 'date-time',
    });
    expect(field(type(index, 'apps', 'v1', 'DeploymentSpec'), 'strategy').patchStrategy).toBe('retainKeys');
  });
});

describe('plain OpenAPI v3 document', () => {
  const index = load('petstore.yaml');

  it('puts plain names in a group made from the title, version v1 for a non-API info.version', () => {
    expect(apiVersions(index.model)).toEqual(['swagger-petstore.svc.io/v1']);
    expect(typeNames(index, 'swagger-petstore.svc.io', 'v1')).toEqual(['Owner', 'Pet', 'PetList', 'Tag']);
  });

  it('converts the schemas and ignores vendor keys', () => {
    const pet = type(index, 'swagger-petstore.svc.io', 'v1', 'Pet');
    expect(pet.description).toBe('A pet for sale.');
    expect(pet.kind).toBeUndefined();
    expect(field(pet, 'id')).toMatchObject({ required: true, type: { kind: 'scalar', type: 'integer', format: 'int64' } });
    expect(field(pet, 'born').type).toEqual({ kind: 'time', format: 'date' });
    expect(field(pet, 'owner').type).toEqual({ kind: 'ref', target: { group: 'swagger-petstore.svc.io', version: 'v1', name: 'Owner' } });
    expect(field(pet, 'tags').type).toMatchObject({ kind: 'list', items: { kind: 'ref', target: { name: 'Tag' } } });
    expect(field(pet, 'status').type).toEqual({ kind: 'scalar', type: 'string', constraints: { enum: ['available', 'pending', 'sold'] } });
  });

  it('makes a <Name>List with items a kind, without a resource', () => {
    const list = type(index, 'swagger-petstore.svc.io', 'v1', 'PetList');
    expect(list.kind).toEqual({ kind: 'PetList', apiVersion: 'swagger-petstore.svc.io/v1', listKind: 'PetListList' });
  });
});

describe('OpenAPI load errors', () => {
  it('reports a dangling ref with the file and the JSON path', () => {
    const error = loadError('dangling-ref.yaml');
    expect(error.file).toBe('dangling-ref.yaml');
    expect(error.path).toBe('.components.schemas.Pet.properties.owner.$ref');
    expect(error.message).toContain('dangling-ref.yaml: .components.schemas.Pet.properties.owner.$ref');
    // info.x-svc-group and an API-version info.version place the plain names.
    expect(error.message).toContain('unknown type pets.example.svc.io/v2#Owner');
  });

  it("rejects a ref in the other OpenAPI version's form, naming the accepted forms", () => {
    const error = loadError('v2-ref-in-v3.yaml');
    expect(error.file).toBe('v2-ref-in-v3.yaml');
    expect(error.path).toBe('.components.schemas.Pet.properties.owner.$ref');
    expect(error.message).toContain('"#/components/schemas/<Name>"');
    expect(error.message).toContain('"#/definitions/<Name>"');
    expect(error.message).toContain('"#/definitions/Owner"');
  });

  it('rejects two schemas that map to the same type, naming both', () => {
    const error = loadError('duplicate-name.yaml');
    expect(error.path).toBe('.components.schemas["pets.svc.io.v1.Pet"]');
    expect(error.message).toContain('"Pet"');
    expect(error.message).toContain('"pets.svc.io.v1.Pet"');
    expect(error.message).toContain('pets.svc.io/v1#Pet');
  });
});
