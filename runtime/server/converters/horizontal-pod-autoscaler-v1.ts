import { type JsonApiObject, badRequest } from '../../api/index.js';
import type { Converter } from './converter.js';

/**
 * autoscaling/v1 HorizontalPodAutoscaler to and from the hub (autoscaling/v2), as upstream's
 * pkg/apis/autoscaling/v1/conversion.go: v1 has only a target CPU utilization, so the hub's other
 * metrics, its current metrics and conditions travel in annotations in v1's metric shapes, and its
 * behavior in an annotation of the internal type (Go field names, as upstream marshals it).
 */
export const horizontalPodAutoscalerV1: Converter = { toHub, fromHub };

const METRICS = 'autoscaling.alpha.kubernetes.io/metrics';
const CURRENT_METRICS = 'autoscaling.alpha.kubernetes.io/current-metrics';
const CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';
const BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior';
/** What v1 meant without a target: upstream's `autoscaling.DefaultCPUUtilization`. */
const DEFAULT_CPU_UTILIZATION = 80;

type Json = Record<string, unknown>;

function toHub(obj: JsonApiObject): void {
  const o = obj as Json;
  const annotations = { ...((obj.metadata?.annotations ?? {}) as Record<string, string>) };
  const spec = (o.spec ?? {}) as Json;
  const { targetCPUUtilizationPercentage: cpu, ...restSpec } = spec;
  const metrics = [
    ...((readAnnotation(annotations, METRICS) as Json[] | undefined) ?? []).map(metricToHub),
    ...(typeof cpu === 'number' ? [cpuMetric(cpu)] : []),
  ];
  const behavior = readAnnotation(annotations, BEHAVIOR);
  o.spec = {
    ...restSpec,
    metrics: metrics.length > 0 ? metrics : [cpuMetric(DEFAULT_CPU_UTILIZATION)],
    ...(behavior ? { behavior: renameKeys(behavior, lowerFirst) } : {}),
  };
  if (o.status !== undefined) {
    const { currentCPUUtilizationPercentage: current, ...restStatus } = o.status as Json;
    const currentMetrics =
      (readAnnotation(annotations, CURRENT_METRICS) as Json[] | undefined)?.map(statusToHub) ??
      (typeof current === 'number'
        ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: current } } }]
        : undefined);
    const conditions = readAnnotation(annotations, CONDITIONS);
    o.status = { ...restStatus, ...(currentMetrics ? { currentMetrics } : {}), ...(conditions ? { conditions } : {}) };
  }
  setAnnotations(obj, annotations);
}

function fromHub(obj: JsonApiObject): void {
  const o = obj as Json;
  const annotations = { ...((obj.metadata?.annotations ?? {}) as Record<string, string>) };
  const { metrics = [], behavior, ...restSpec } = (o.spec ?? {}) as { metrics?: Json[]; behavior?: unknown };
  const cpu = metrics.find((m) => m.type === 'Resource' && resourceOf(m)?.name === 'cpu');
  const cpuTarget = (resourceOf(cpu)?.target as Json | undefined)?.averageUtilization;
  const others = metrics.filter((m) => !(m.type === 'Resource' && resourceOf(m)?.name === 'cpu' && utilizationOf(m) !== undefined));
  o.spec = { ...restSpec, ...(typeof cpuTarget === 'number' ? { targetCPUUtilizationPercentage: cpuTarget } : {}) };
  if (others.length > 0) annotations[METRICS] = JSON.stringify(others.map(metricFromHub));
  if (behavior) annotations[BEHAVIOR] = JSON.stringify(renameKeys(behavior, upperFirst));
  if (o.status !== undefined) {
    const { currentMetrics = [], conditions = [], ...restStatus } = o.status as { currentMetrics?: Json[]; conditions?: unknown[] };
    let current: unknown;
    for (const m of currentMetrics) {
      const r = resourceOf(m);
      if (m.type === 'Resource' && r?.name === 'cpu' && (r.current as Json | undefined)?.averageUtilization !== undefined)
        current = (r.current as Json).averageUtilization;
    }
    o.status = { ...restStatus, ...(current !== undefined ? { currentCPUUtilizationPercentage: current } : {}) };
    if (currentMetrics.length > 0) annotations[CURRENT_METRICS] = JSON.stringify(currentMetrics.map(statusFromHub));
    if (conditions.length > 0) annotations[CONDITIONS] = JSON.stringify(conditions);
  }
  setAnnotations(obj, annotations);
}

function cpuMetric(utilization: number): Json {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } };
}

function resourceOf(m: Json | undefined): Json | undefined {
  return m?.resource as Json | undefined;
}

function utilizationOf(m: Json): unknown {
  return (resourceOf(m)?.target as Json | undefined)?.averageUtilization;
}

/** The annotation's JSON, taken out of `annotations`; undefined when absent. */
function readAnnotation(annotations: Record<string, string>, key: string): unknown {
  const text = annotations[key];
  if (text === undefined) return undefined;
  delete annotations[key];
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`annotation ${key}: ${(e as Error).message}`);
  }
}

function setAnnotations(obj: JsonApiObject, annotations: Record<string, string>): void {
  if (Object.keys(annotations).length > 0) obj.metadata = { ...obj.metadata, annotations };
  else if (obj.metadata?.annotations !== undefined) {
    const { annotations: _, ...rest } = obj.metadata;
    obj.metadata = rest;
  }
}

/** Drops undefined members, as Go's omitempty leaves out nil pointers. */
function defined(o: Json): Json {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** A v1 MetricSpec (v2beta1's flat shape) as a v2 MetricSpec. */
function metricToHub(m: Json): Json {
  const type = m.type as string;
  const s = (m[sourceField(type)] ?? {}) as Json;
  const metric = (name: unknown, selector: unknown) => defined({ name, selector });
  switch (type) {
    case 'Object':
      return {
        type,
        object: defined({
          describedObject: s.target,
          metric: metric(s.metricName, s.selector),
          target: defined({
            type: s.averageValue === undefined ? 'Value' : 'AverageValue',
            value: s.targetValue,
            averageValue: s.averageValue,
          }),
        }),
      };
    case 'Pods':
      return {
        type,
        pods: { metric: metric(s.metricName, s.selector), target: { type: 'AverageValue', averageValue: s.targetAverageValue } },
      };
    case 'External':
      return {
        type,
        external: {
          metric: metric(s.metricName, s.metricSelector),
          target: defined({
            type: s.targetValue === undefined ? 'AverageValue' : 'Value',
            value: s.targetValue,
            averageValue: s.targetAverageValue,
          }),
        },
      };
    default: {
      const target = defined({
        type: s.targetAverageUtilization === undefined ? 'AverageValue' : 'Utilization',
        averageUtilization: s.targetAverageUtilization,
        averageValue: s.targetAverageValue,
      });
      return { type, [sourceField(type)]: defined({ name: s.name, container: s.container, target }) };
    }
  }
}

/** A v2 MetricSpec as v1's (v2beta1's flat shape). */
function metricFromHub(m: Json): Json {
  const type = m.type as string;
  const s = (m[sourceField(type)] ?? {}) as Json;
  const metric = (s.metric ?? {}) as Json;
  const target = (s.target ?? {}) as Json;
  switch (type) {
    case 'Object':
      return {
        type,
        object: defined({
          target: s.describedObject,
          metricName: metric.name,
          targetValue: target.value,
          selector: metric.selector,
          averageValue: target.averageValue,
        }),
      };
    case 'Pods':
      return { type, pods: defined({ metricName: metric.name, targetAverageValue: target.averageValue, selector: metric.selector }) };
    case 'External':
      return {
        type,
        external: defined({
          metricName: metric.name,
          metricSelector: metric.selector,
          targetValue: target.value,
          targetAverageValue: target.averageValue,
        }),
      };
    default:
      return {
        type,
        [sourceField(type)]: defined({
          name: s.name,
          targetAverageUtilization: target.averageUtilization,
          targetAverageValue: target.averageValue,
          container: s.container,
        }),
      };
  }
}

/** A v1 MetricStatus as v2's. */
function statusToHub(m: Json): Json {
  const type = m.type as string;
  const s = (m[sourceField(type)] ?? {}) as Json;
  const metric = (name: unknown, selector: unknown) => defined({ name, selector });
  switch (type) {
    case 'Object':
      return {
        type,
        object: defined({
          describedObject: s.target,
          metric: metric(s.metricName, s.selector),
          current: defined({ value: s.currentValue, averageValue: s.averageValue }),
        }),
      };
    case 'Pods':
      return { type, pods: { metric: metric(s.metricName, s.selector), current: defined({ averageValue: s.currentAverageValue }) } };
    case 'External':
      return {
        type,
        external: {
          metric: metric(s.metricName, s.metricSelector),
          current: defined({ value: s.currentValue, averageValue: s.currentAverageValue }),
        },
      };
    default: {
      const current = defined({ averageValue: s.currentAverageValue, averageUtilization: s.currentAverageUtilization });
      return { type, [sourceField(type)]: defined({ name: s.name, container: s.container, current }) };
    }
  }
}

/** A v2 MetricStatus as v1's. */
function statusFromHub(m: Json): Json {
  const type = m.type as string;
  const s = (m[sourceField(type)] ?? {}) as Json;
  const metric = (s.metric ?? {}) as Json;
  const current = (s.current ?? {}) as Json;
  switch (type) {
    case 'Object':
      return {
        type,
        object: defined({
          target: s.describedObject,
          metricName: metric.name,
          currentValue: current.value,
          selector: metric.selector,
          averageValue: current.averageValue,
        }),
      };
    case 'Pods':
      return { type, pods: defined({ metricName: metric.name, currentAverageValue: current.averageValue, selector: metric.selector }) };
    case 'External':
      return {
        type,
        external: defined({
          metricName: metric.name,
          metricSelector: metric.selector,
          currentValue: current.value,
          currentAverageValue: current.averageValue,
        }),
      };
    default:
      return {
        type,
        [sourceField(type)]: defined({
          name: s.name,
          currentAverageUtilization: current.averageUtilization,
          currentAverageValue: current.averageValue,
          container: s.container,
        }),
      };
  }
}

/** The member of a metric that holds its source: `Resource` in `resource`, `ContainerResource` in `containerResource`. */
function sourceField(type: string): string {
  return lowerFirst(type);
}

function lowerFirst(key: string): string {
  return key.charAt(0).toLowerCase() + key.slice(1);
}

function upperFirst(key: string): string {
  return key.charAt(0).toUpperCase() + key.slice(1);
}

/** The value with every object key renamed by `rename`, recursively. */
function renameKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, rename));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [rename(k), renameKeys(v, rename)]));
}
