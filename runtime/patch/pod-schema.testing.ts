/**
 * A small hand-written Pod-like schema for the strategic merge patch tests: containers keyed by
 * name, ports keyed by containerPort and protocol (protocol defaults to TCP), env keyed by name,
 * volumes merged by name with retainKeys, finalizers as a set, labels as a map, tolerations atomic.
 * A few fields exist only to exercise one marker each (affinity, gates, conditions, extensions).
 */
import type { FieldSchema, ListSchema, MapSchema, ObjectSchema, ScalarSchema, SchemaNode } from '../schema/index.js';

const str: ScalarSchema = { type: 'string' };
const int: ScalarSchema = { type: 'integer' };
const stringMap: MapSchema = { type: 'map', values: str };

function object(typeName: string, fields: FieldSchema[]): ObjectSchema {
  return { type: 'object', typeName, fields };
}
function atomicList(items: SchemaNode): ListSchema {
  return { type: 'list', listType: 'atomic', items };
}
function keyedList(items: SchemaNode, ...keys: string[]): ListSchema {
  return { type: 'list', listType: 'map', listMapKeys: keys, items };
}

const ContainerPort = object('core.v1.ContainerPort', [
  { name: 'name', schema: str },
  { name: 'hostPort', schema: int },
  { name: 'containerPort', schema: int, required: true },
  { name: 'protocol', schema: { type: 'string', default: 'TCP' } },
]);

const EnvVar = object('core.v1.EnvVar', [
  { name: 'name', schema: str, required: true },
  { name: 'value', schema: str },
]);

const ResourceRequirements = object('core.v1.ResourceRequirements', [
  { name: 'limits', schema: stringMap },
  { name: 'requests', schema: stringMap },
]);

const Container = object('core.v1.Container', [
  { name: 'name', schema: str, required: true },
  { name: 'image', schema: str },
  { name: 'imagePullPolicy', schema: str },
  { name: 'args', schema: atomicList(str) },
  {
    name: 'ports',
    schema: keyedList({ type: 'ref', ref: () => ContainerPort }, 'containerPort', 'protocol'),
    patchStrategy: 'merge',
    patchMergeKey: 'containerPort',
  },
  { name: 'env', schema: keyedList(EnvVar, 'name'), patchStrategy: 'merge', patchMergeKey: 'name' },
  { name: 'resources', schema: ResourceRequirements },
]);

const Volume = object('core.v1.Volume', [
  { name: 'name', schema: str, required: true },
  { name: 'emptyDir', schema: object('core.v1.EmptyDirVolumeSource', [{ name: 'medium', schema: str }]) },
  { name: 'hostPath', schema: object('core.v1.HostPathVolumeSource', [{ name: 'path', schema: str }]) },
]);

const Toleration = object('core.v1.Toleration', [
  { name: 'key', schema: str },
  { name: 'operator', schema: str },
  { name: 'value', schema: str },
  { name: 'effect', schema: str },
]);

const PodSpec = object('core.v1.PodSpec', [
  { name: 'containers', schema: keyedList({ type: 'ref', ref: () => Container }, 'name'), patchStrategy: 'merge', patchMergeKey: 'name' },
  {
    name: 'initContainers',
    schema: keyedList({ type: 'ref', ref: () => Container }, 'name'),
    patchStrategy: 'merge',
    patchMergeKey: 'name',
  },
  { name: 'volumes', schema: keyedList(Volume, 'name'), patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' },
  { name: 'tolerations', schema: atomicList(Toleration) },
  { name: 'nodeSelector', schema: stringMap },
  {
    name: 'affinity',
    schema: object('test.Affinity', [
      { name: 'zone', schema: str },
      { name: 'rack', schema: str },
    ]),
    patchStrategy: 'replace',
  },
  // A set by list type only, with no legacy marker.
  { name: 'gates', schema: { type: 'list', listType: 'set', items: str } },
]);

const ObjectMeta = object('meta.v1.ObjectMeta', [
  { name: 'name', schema: str },
  { name: 'labels', schema: stringMap },
  { name: 'annotations', schema: stringMap },
  { name: 'finalizers', schema: { type: 'list', listType: 'set', items: str }, patchStrategy: 'merge' },
]);

const PodCondition = object('core.v1.PodCondition', [
  { name: 'type', schema: str, required: true },
  { name: 'status', schema: str },
]);

const PodStatus = object('core.v1.PodStatus', [
  { name: 'phase', schema: str },
  // Keyed by list type only, with no legacy marker.
  { name: 'conditions', schema: keyedList(PodCondition, 'type') },
]);

export const PodSchema: ObjectSchema = object('core.v1.Pod', [
  { name: 'apiVersion', schema: str },
  { name: 'kind', schema: str },
  { name: 'metadata', schema: { type: 'ref', ref: () => ObjectMeta } },
  { name: 'spec', schema: { type: 'ref', ref: () => PodSpec } },
  { name: 'status', schema: PodStatus },
  // Unstructured content: maps merge, lists replace, `$`-members are data.
  { name: 'extensions', schema: { type: 'raw' } },
]);
