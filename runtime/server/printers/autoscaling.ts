/** HorizontalPodAutoscalers as upstream's printHorizontalPodAutoscaler and formatHPAMetrics. */
import type { TablePrinter } from '../../codec/index.js';
import { AGE, NAME, type Obj, at, column, int, list, quantity, since, text } from './cells.js';

export const horizontalPodAutoscalerPrinter: TablePrinter = {
  columns: [
    NAME,
    column(
      'Reference',
      'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.',
    ),
    column(
      'Targets',
      'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).',
    ),
    column('MinPods', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.'),
    column('MaxPods', 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.'),
    column('Replicas', 'currentReplicas is current number of replicas of pods managed by this autoscaler.'),
    AGE,
  ],
  cells(hpa, now) {
    const spec = at(hpa, 'spec');
    const target = at(hpa, 'spec.scaleTargetRef');
    const { specs, statuses } = metricsOf(hpa);
    return [
      text(at(hpa, 'metadata').name),
      `${text(target.kind)}/${text(target.name)}`,
      formatMetrics(specs, statuses),
      typeof spec.minReplicas === 'number' ? String(spec.minReplicas) : '<unset>',
      int(spec.maxReplicas),
      int(at(hpa, 'status').currentReplicas),
      since(at(hpa, 'metadata').creationTimestamp, now),
    ];
  },
};

/**
 * The metrics of either served version: autoscaling/v2's lists, or autoscaling/v1's CPU target and
 * current utilisation, which upstream's conversion turns into one Resource metric.
 */
function metricsOf(hpa: Obj): { specs: Obj[]; statuses: Obj[] } {
  const spec = at(hpa, 'spec');
  if (spec.metrics !== undefined || typeof spec.targetCPUUtilizationPercentage !== 'number') {
    return { specs: list(spec.metrics), statuses: list(at(hpa, 'status').currentMetrics) };
  }
  const current = at(hpa, 'status').currentCPUUtilizationPercentage;
  const utilization = (value: unknown) => ({ name: 'cpu', target: { type: 'Utilization', averageUtilization: value } });
  return {
    specs: [{ type: 'Resource', resource: utilization(spec.targetCPUUtilizationPercentage) }],
    statuses:
      typeof current === 'number' ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: current } } }] : [],
  };
}

const percent = (n: unknown) => (typeof n === 'number' ? `${n}%` : undefined);

/** Each metric as `current/target`, the first two and `+ N more...`; `<none>` without metrics. */
function formatMetrics(specs: Obj[], statuses: Obj[]): string {
  if (specs.length === 0) return '<none>';
  const max = 2;
  const shown = specs.slice(0, max).map((spec, i) => formatMetric(spec, statuses[i] ?? {}));
  const text = shown.join(', ');
  return specs.length > max ? `${text} + ${specs.length - max} more...` : text;
}

/** The source of a metric by its type: where its target and current values sit. */
const SOURCE: Readonly<Record<string, string>> = {
  External: 'external',
  Pods: 'pods',
  Object: 'object',
  Resource: 'resource',
  ContainerResource: 'containerResource',
};

function formatMetric(spec: Obj, status: Obj): string {
  const key = SOURCE[text(spec.type)];
  if (key === undefined) return '<unknown type>';
  const source = at(spec, key);
  const target = at(source, 'target');
  const current = status[key] === undefined ? undefined : at(status[key], 'current');
  const known = (value: string | undefined) => value ?? '<unknown>';
  switch (key) {
    case 'pods':
      return `${known(current && quantity(current.averageValue))}/${quantity(target.averageValue)}`;
    case 'external':
    case 'object':
      if (target.averageValue !== undefined) {
        const avg = current?.averageValue === undefined ? undefined : quantity(current.averageValue);
        return `${known(avg)}/${quantity(target.averageValue)} (avg)`;
      }
      return `${known(current && quantity(current.value))}/${quantity(target.value)}`;
    default: {
      // Resource and ContainerResource name their resource first.
      const name = text(source.name);
      if (target.averageValue !== undefined)
        return `${name}: ${known(current && quantity(current.averageValue))}/${quantity(target.averageValue)}`;
      return `${name}: ${known(current && percent(current.averageUtilization))}/${percent(target.averageUtilization) ?? '<auto>'}`;
    }
  }
}
