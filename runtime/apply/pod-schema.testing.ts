/**
 * A small hand-written Pod-like schema for the apply tests, one field per merge marker:
 * containers a list map keyed by name, ports keyed by containerPort and protocol (protocol
 * defaults to TCP), finalizers a set, labels a granular map, nodeSelector an atomic map,
 * tolerations an atomic list, securityContext an atomic struct, initContainers and dnsConfig
 * read through the legacy patchStrategy markers, readinessGates an index list. `withSpecField`
 * swaps one spec field, for the topology-change tests.
 */
import type { FieldSchema, ListSchema, MapSchema, ObjectSchema, ScalarSchema, SchemaNode } from '../schema/index.js';

const str: ScalarSchema = { type: 'string' };
const int: ScalarSchema = { type: 'integer' };

function object(typeName: string, fields: FieldSchema[], structType?: 'atomic' | 'granular'): ObjectSchema {
  return { type: 'object', typeName, fields, ...(structType ? { structType } : {}) };
}
function list(items: SchemaNode, listType?: ListSchema['listType'], ...keys: string[]): ListSchema {
  return { type: 'list', items, ...(listType ? { listType } : {}), ...(keys.length > 0 ? { listMapKeys: keys } : {}) };
}
function map(values: SchemaNode, mapType?: MapSchema['mapType']): MapSchema {
  return { type: 'map', values, ...(mapType ? { mapType } : {}) };
}

const ContainerPort = object('test.ContainerPort', [
  { name: 'name', schema: str },
  { name: 'containerPort', schema: int, required: true },
  { name: 'protocol', schema: { type: 'string', default: 'TCP' } },
  { name: 'hostPort', schema: int },
]);

const EnvVar = object('test.EnvVar', [
  { name: 'name', schema: str, required: true },
  { name: 'value', schema: str },
]);

const Resources = object('test.Resources', [
  { name: 'limits', schema: map(str) },
  { name: 'requests', schema: map(str) },
]);

export const Container = object('test.Container', [
  { name: 'name', schema: str, required: true },
  { name: 'image', schema: str },
  { name: 'imagePullPolicy', schema: str },
  { name: 'args', schema: list(str, 'atomic') },
  // No marker at all: atomic for built-in kinds too.
  { name: 'command', schema: list(str) },
  { name: 'ports', schema: list({ type: 'ref', ref: () => ContainerPort }, 'map', 'containerPort', 'protocol') },
  { name: 'env', schema: list(EnvVar, 'map', 'name') },
  { name: 'resources', schema: Resources },
]);

const Toleration = object('test.Toleration', [
  { name: 'key', schema: str },
  { name: 'operator', schema: str },
  { name: 'effect', schema: str },
]);

const SecurityContext = object(
  'test.SecurityContext',
  [
    { name: 'runAsUser', schema: int },
    { name: 'runAsGroup', schema: int },
    { name: 'runAsNonRoot', schema: { type: 'boolean' } },
  ],
  'atomic',
);

const DNSConfig = object('test.DNSConfig', [
  // Legacy merge without a key on a list of strings: a set.
  { name: 'nameservers', schema: list(str), patchStrategy: 'merge' },
  { name: 'searches', schema: list(str) },
]);

const ReadinessGate = object('test.ReadinessGate', [{ name: 'conditionType', schema: str }]);

const specFields: FieldSchema[] = [
  { name: 'containers', schema: list({ type: 'ref', ref: () => Container }, 'map', 'name') },
  // No list type: the legacy markers make it a list map keyed by name.
  { name: 'initContainers', schema: list({ type: 'ref', ref: () => Container }), patchStrategy: 'merge', patchMergeKey: 'name' },
  // Both: the list type wins over the legacy markers.
  {
    name: 'volumes',
    schema: list(
      object('test.Volume', [
        { name: 'name', schema: str },
        { name: 'path', schema: str },
      ]),
      'atomic',
    ),
    patchStrategy: 'merge',
    patchMergeKey: 'name',
  },
  { name: 'tolerations', schema: list(Toleration, 'atomic') },
  { name: 'nodeSelector', schema: map(str, 'atomic') },
  { name: 'securityContext', schema: SecurityContext },
  { name: 'dnsConfig', schema: DNSConfig },
  { name: 'readinessGates', schema: list(ReadinessGate, 'map') },
  { name: 'gates', schema: list(str, 'set') },
  { name: 'replicas', schema: int },
  { name: 'hostname', schema: str },
  { name: 'paused', schema: { type: 'boolean' } },
  {
    name: 'strategy',
    schema: object('test.Strategy', [
      { name: 'type', schema: str },
      { name: 'maxSurge', schema: { type: 'int-or-string' } },
    ]),
  },
];

const ObjectMeta = object('test.ObjectMeta', [
  { name: 'name', schema: str },
  { name: 'namespace', schema: str },
  { name: 'uid', schema: str },
  { name: 'resourceVersion', schema: str },
  { name: 'generation', schema: int },
  { name: 'creationTimestamp', schema: { type: 'date-time' } },
  { name: 'labels', schema: map(str, 'granular') },
  { name: 'annotations', schema: map(str, 'granular') },
  { name: 'finalizers', schema: list(str, 'set') },
  { name: 'managedFields', schema: list({ type: 'raw' }, 'atomic') },
]);

const PodCondition = object('test.PodCondition', [
  { name: 'type', schema: str, required: true },
  { name: 'status', schema: str },
]);

const PodStatus = object('test.PodStatus', [
  { name: 'phase', schema: str },
  { name: 'conditions', schema: list(PodCondition, 'map', 'type') },
]);

function pod(spec: FieldSchema[]): ObjectSchema {
  return object('test.Pod', [
    { name: 'apiVersion', schema: str },
    { name: 'kind', schema: str },
    { name: 'metadata', schema: ObjectMeta },
    { name: 'spec', schema: object('test.PodSpec', spec) },
    { name: 'status', schema: PodStatus },
    // Unstructured content: objects granular, lists atomic.
    { name: 'extra', schema: { type: 'raw' } },
  ]);
}

export const PodSchema: ObjectSchema = pod(specFields);

/** The Pod schema with spec field `name` replaced, as if its markers had changed. */
export function withSpecField(name: string, schema: SchemaNode): ObjectSchema {
  return pod(specFields.map((f) => (f.name === name ? { name, schema } : f)));
}

/** The shapes the topology tests switch between. */
export const topology = {
  tolerationsGranular: list(Toleration, 'map', 'key'),
  tolerationsAtomic: list(Toleration, 'atomic'),
  containersAtomic: list({ type: 'ref', ref: () => Container }, 'atomic'),
  nodeSelectorGranular: map(str, 'granular'),
  nodeSelectorAtomic: map(str, 'atomic'),
  strategyAtomic: object(
    'test.Strategy',
    [
      { name: 'type', schema: str },
      { name: 'maxSurge', schema: { type: 'int-or-string' } },
    ],
    'atomic',
  ),
  securityContextGranular: object('test.SecurityContext', SecurityContext.fields.slice()),
  gatesAtomic: list(str, 'atomic'),
};

/** A custom resource's schema: no markers except where a test adds them. */
export const WidgetSchema: ObjectSchema = object('example.Widget', [
  { name: 'apiVersion', schema: str },
  { name: 'kind', schema: str },
  { name: 'metadata', schema: ObjectMeta },
  {
    name: 'spec',
    schema: object('example.WidgetSpec', [
      { name: 'size', schema: int },
      { name: 'tags', schema: list(str) },
      {
        name: 'parts',
        schema: list(
          object('example.Part', [
            { name: 'id', schema: str },
            { name: 'count', schema: int },
          ]),
        ),
      },
      // Legacy markers mean nothing to a custom resource.
      {
        name: 'legacy',
        schema: list(
          object('example.Part', [
            { name: 'id', schema: str },
            { name: 'count', schema: int },
          ]),
        ),
        patchStrategy: 'merge',
        patchMergeKey: 'id',
      },
      {
        name: 'keyed',
        schema: list(
          object('example.Part', [
            { name: 'id', schema: str },
            { name: 'count', schema: int },
          ]),
          'map',
          'id',
        ),
      },
      { name: 'labels', schema: map(str) },
      { name: 'free', schema: { type: 'object', fields: [], preserveUnknown: true } },
    ]),
  },
]);
