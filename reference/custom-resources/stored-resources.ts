import type { StoredResource } from '../../runtime/encryption/index.js';
import type { Store } from '../../runtime/store/index.js';
import { decodeObjects, type ResourceRegistry, storagePrefixOf } from '../../runtime/server/index.js';

/**
 * The resources of the CustomResourceDefinitions kept in `store`: their group, plural and where
 * their objects are stored, for tools that work on stored objects without a server serving them
 * (`svckit encryption rewrite`). Empty when the registry serves no CustomResourceDefinition kind.
 */
export async function storedDefinitionResources(store: Store, registry: ResourceRegistry): Promise<StoredResource[]> {
  const definitions = registry.resources().find((r) => r.kind === 'CustomResourceDefinition' && r.resource === 'customresourcedefinitions');
  if (!definitions) return [];
  const out: StoredResource[] = [];
  for (const crd of await decodeObjects((await store.list(definitions.storagePrefix)).items, definitions)) {
    const spec = crd.spec as { group?: unknown; names?: { plural?: unknown } } | undefined;
    const group = spec?.group;
    const plural = spec?.names?.plural;
    if (typeof group === 'string' && typeof plural === 'string') {
      out.push({ group, resource: plural, storagePrefix: storagePrefixOf(group, plural, true) });
    }
  }
  return out;
}
