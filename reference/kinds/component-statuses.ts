/**
 * The `componentstatuses` a 1.30 kube-apiserver answers (pkg/registry/core/componentstatus), as a
 * server with no controller-manager and no scheduler finds them: both Unhealthy with the connection
 * error upstream's probe of their /healthz reports, and the storage backend as `etcd-0`, Healthy
 * `ok` once it answers. Written when the server starts; the kind is read-only.
 */
import { randomUUID } from 'node:crypto';
import { type JsonApiObject, timestamp } from '../../runtime/api/index.js';
import { decodeObject, encodeObject, type HookHost, type KindHook, objectKey } from '../../runtime/server/index.js';
import { isStoreConflictError, isStoreKeyExistsError } from '../../runtime/store/index.js';

interface Component {
  name: string;
  healthy: boolean;
  message: string;
}

/** Upstream's probe of a component's secure port on the loopback address, refused when nothing listens. */
function unreachable(name: string, port: number): Component {
  const url = `https://127.0.0.1:${port}/healthz`;
  return { name, healthy: false, message: `Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused` };
}

export function componentStatuses({ context, declaring }: HookHost): KindHook {
  return {
    async resume() {
      await context.store.currentRevision(); // the storage answers: etcd-0 is healthy
      const components = [
        unreachable('controller-manager', 10257),
        { name: 'etcd-0', healthy: true, message: 'ok' },
        unreachable('scheduler', 10259),
      ];
      for (const c of components) {
        const key = objectKey(declaring, undefined, c.name);
        const stored = await context.store.get(key);
        const old = stored ? await decodeObject(stored, declaring) : undefined;
        const object: JsonApiObject = {
          apiVersion: 'v1',
          kind: 'ComponentStatus',
          metadata: {
            name: c.name,
            uid: old?.metadata?.uid ?? randomUUID(),
            creationTimestamp: old?.metadata?.creationTimestamp ?? timestamp(context.settings.now()),
          },
          conditions: [{ type: 'Healthy', status: c.healthy ? 'True' : 'False', message: c.message }],
        };
        const value = await encodeObject(object, declaring);
        try {
          if (!stored) await context.store.create(key, value);
          else if (JSON.stringify(old?.conditions) !== JSON.stringify(object.conditions))
            await context.store.update(key, value, { expectedModRevision: stored.modRevision });
        } catch (e) {
          // Another replica starting on the same store wrote it first: the same entry, keep theirs.
          if (!isStoreKeyExistsError(e) && !isStoreConflictError(e)) throw e;
        }
      }
    },
  };
}
