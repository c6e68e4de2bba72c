import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import type { JsonApiObject } from '../api/index.js';
import { ResourceConverter } from './conversion.js';

const slices = new ResourceConverter(allKinds.filter((k) => k.group === 'discovery.svc.io' && k.kind === 'EndpointSlice'));
const V1 = 'discovery.svc.io/v1';
const V1BETA1 = 'discovery.svc.io/v1beta1';

function slice(apiVersion: string, endpoint: Record<string, unknown>): JsonApiObject {
  return {
    apiVersion,
    kind: 'EndpointSlice',
    metadata: { name: 's' },
    endpoints: [{ addresses: ['10.0.0.1'], ...endpoint }],
  } as JsonApiObject;
}

function endpoint(obj: JsonApiObject): unknown {
  return (obj as { endpoints: unknown[] }).endpoints[0];
}

describe('EndpointSlice conversion as declared in the schemas', () => {
  it('round-trips a v1beta1 endpoint whose hostname entry differs from nodeName, as upstream keeps both', async () => {
    const original = slice(V1BETA1, { nodeName: 'n1', topology: { 'svc.io/hostname': 'h2', 'topology.svc.io/zone': 'z', rack: 'r' } });
    const hub = await slices.convert(structuredClone(original), V1);
    expect(endpoint(hub)).toEqual({
      addresses: ['10.0.0.1'],
      nodeName: 'n1',
      zone: 'z',
      deprecatedTopology: { 'svc.io/hostname': 'h2', rack: 'r' },
    });
    expect(await slices.convert(hub, V1BETA1)).toEqual(original);
  });

  it('drops a hostname entry equal to nodeName and an emptied map on the way to v1, and adds both back', async () => {
    const hub = await slices.convert(
      slice(V1BETA1, { nodeName: 'n1', topology: { 'kubernetes.io/hostname': 'n1', 'topology.kubernetes.io/zone': 'z' } }),
      V1,
    );
    expect(endpoint(hub)).toEqual({ addresses: ['10.0.0.1'], nodeName: 'n1', zone: 'z' });
    // Written back under the product's key names.
    expect(endpoint(await slices.convert(hub, V1BETA1))).toEqual({
      addresses: ['10.0.0.1'],
      nodeName: 'n1',
      topology: { 'svc.io/hostname': 'n1', 'topology.svc.io/zone': 'z' },
    });
  });

  it('leaves an endpoint without topology, zone or node name alone in both directions', async () => {
    expect(await slices.convert(slice(V1BETA1, {}), V1)).toEqual(slice(V1, {}));
    expect(await slices.convert(slice(V1, {}), V1BETA1)).toEqual(slice(V1BETA1, {}));
  });

  it('takes an apiVersion no schema declares as the hub shape', async () => {
    expect(endpoint(await slices.convert(slice('discovery.svc.io/v9', { zone: 'z' }), V1BETA1))).toEqual({
      addresses: ['10.0.0.1'],
      topology: { 'topology.svc.io/zone': 'z' },
    });
  });
});
