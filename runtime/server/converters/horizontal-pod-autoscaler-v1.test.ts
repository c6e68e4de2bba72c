/**
 * autoscaling/v1 HorizontalPodAutoscaler over HTTP: the same objects as autoscaling/v2, v1's CPU
 * target as v2's CPU utilization metric, and v2's other fields kept through v1 in upstream's
 * `autoscaling.alpha.kubernetes.io/` annotations, so that a v1 client round-trips them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startServer } from '../server.testing.js';

const V1 = '/apis/autoscaling/v1/namespaces/test/horizontalpodautoscalers';
const V2 = '/apis/autoscaling/v2/namespaces/test/horizontalpodautoscalers';
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
let h: Harness;

beforeAll(async () => {
  h = await startServer();
});
afterAll(() => h.close());

describe('autoscaling/v1 HorizontalPodAutoscaler', () => {
  it('is created through v1 (kubectl autoscale) and read through v2 with the CPU target as a metric', async () => {
    const created = await h.create(V1, {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web' },
      spec: { scaleTargetRef: target, maxReplicas: 3, targetCPUUtilizationPercentage: 60 },
    });
    expect(created.spec).toEqual({ scaleTargetRef: target, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 60 });
    expect(created.metadata.annotations).toBeUndefined();
    const v2 = await h.read(`${V2}/web`);
    expect(v2.spec.metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
    ]);
  });

  it('without a CPU target means upstream default: 80% CPU in v2', async () => {
    await h.create(V1, {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'plain' },
      spec: { scaleTargetRef: target, maxReplicas: 2 },
    });
    const v2 = await h.read(`${V2}/plain`);
    expect(v2.spec.metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ]);
  });

  it("keeps v2's other metrics, behavior and conditions through v1 in annotations", async () => {
    const memory = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } };
    const cpu = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } };
    await h.create(V2, {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'rich' },
      spec: {
        scaleTargetRef: target,
        maxReplicas: 5,
        metrics: [memory, cpu],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
    });
    const v1 = await h.read(`${V1}/rich`);
    expect(v1.spec.targetCPUUtilizationPercentage).toBe(50);
    const annotations = v1.metadata.annotations;
    expect(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/metrics'])).toEqual([
      { type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } },
    ]);
    // Upstream marshals the internal type, which has no JSON names: Go's field names.
    expect(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/behavior']).ScaleDown).toMatchObject({ StabilizationWindowSeconds: 60 });

    // A v1 client writes the object back as it read it: nothing of v2's is lost, no annotation is stored.
    v1.spec.maxReplicas = 6;
    await h.put(`${V1}/rich`, v1).expect(200);
    const v2 = await h.read(`${V2}/rich`);
    expect(v2.spec.maxReplicas).toBe(6);
    expect(v2.spec.metrics).toEqual([memory, cpu]);
    expect(v2.spec.behavior.scaleDown.stabilizationWindowSeconds).toBe(60);
    expect(v2.metadata.annotations).toBeUndefined();
  });

  it("answers v2's current metrics as v1's current CPU utilization", async () => {
    const hpa = await h.read(`${V2}/web`);
    hpa.status = {
      currentReplicas: 2,
      desiredReplicas: 2,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 42, averageValue: '100m' } } }],
      conditions: [{ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', lastTransitionTime: '2024-01-01T00:00:00Z' }],
    };
    await h.put(`${V2}/web/status`, hpa).expect(200);
    const v1 = await h.read(`${V1}/web`);
    expect(v1.status).toEqual({ currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 42 });
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/current-metrics'])).toEqual([
      { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 42, currentAverageValue: '100m' } },
    ]);
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/conditions'])[0].type).toBe('AbleToScale');
  });
});
