import type { HandlerCatalog, KindHook, ServerContext, ServerHooks, SubresourceHandler, VirtualCreateHandler } from './context.js';
import type { ServedResource } from './resources.js';

/**
 * Looks the names a kind declares (`resource.hooks`, `resource.virtual`,
 * `resource.subresourceHandlers`) up in the handler catalogue. A hook is instantiated once per
 * resource (all versions share it, at the storage version). A name the catalogue lacks is an
 * error when the server starts, not when a request finds it missing.
 */
export function bindHooks(context: Omit<ServerContext, 'hooks'>, catalog: HandlerCatalog): ServerHooks {
  const byPrefix = new Map<string, KindHook[]>();
  const instances: KindHook[] = [];
  for (const r of context.registry.resources()) {
    const d = r.descriptor;
    if (d.virtual !== undefined && !catalog.virtual?.[d.virtual]) throw missing('virtual create handler', d.virtual, r);
    for (const { handler } of Object.values(d.subresourceHandlers ?? {})) {
      if (!catalog.subresources?.[handler]) throw missing('subresource handler', handler, r);
    }
    if (byPrefix.has(r.storagePrefix)) continue;
    const hooks = (d.hooks ?? []).map((name) => {
      const make = catalog.hooks?.[name];
      if (!make) throw missing('hook', name, r);
      return make({ context, declaring: r.storageVersion ?? r });
    });
    byPrefix.set(r.storagePrefix, hooks);
    instances.push(...hooks);
  }
  return {
    of: (r) => byPrefix.get(r.storagePrefix) ?? [],
    all: () => instances,
    defaulters: catalog.defaulters ?? {},
    subresource(r: ServedResource, subresource: string): SubresourceHandler | undefined {
      const declared = r.descriptor.subresourceHandlers?.[subresource];
      return declared === undefined ? undefined : catalog.subresources?.[declared.handler];
    },
    virtual(r: ServedResource): VirtualCreateHandler | undefined {
      return r.descriptor.virtual === undefined ? undefined : catalog.virtual?.[r.descriptor.virtual];
    },
    namespaceChanged(namespace: string): void {
      for (const h of instances) h.namespaceChanged?.(namespace);
    },
    async idle(): Promise<void> {
      for (const h of instances) await h.idle?.();
    },
  };
}

function missing(what: string, name: string, r: ServedResource): Error {
  return new Error(`${r.apiVersion} ${r.kind} declares the ${what} "${name}", which the server's handler catalogue does not provide`);
}
