import type { GroupVersion } from '../model/index.js';
import type { LinkContext } from './link.js';
import { META_GROUP } from './link.js';

/** The suffix of the spec's groups (`<name>.svc.io`). */
const SPEC_SUFFIX = '.svc.io';

/**
 * `codegen --group-suffix k8s.io`: every loaded group named `<name>.svc.io` is renamed
 * `<name>.<suffix>` before linking, so that every artifact (types, kinds, clients, OpenAPI,
 * Protobuf) names the groups as a server started with the same `--group-suffix` serves them. The
 * meta types keep their group: they are no served group, and linking refers to them by name.
 * (The runtime renames the same way, in runtime/api group-names; the generator may not import it.)
 */
export function renameGroups(loaded: GroupVersion[], ctx: LinkContext, suffix: string): void {
  const group = (g: string) => (g.endsWith(SPEC_SUFFIX) && g !== META_GROUP ? `${g.slice(0, -SPEC_SUFFIX.length)}.${suffix}` : g);
  const apiVersion = (v: string) => {
    const slash = v.indexOf('/');
    return slash < 0 ? v : `${group(v.slice(0, slash))}${v.slice(slash)}`;
  };
  const seen = new Set<object>();
  // Every `group` and `apiVersion` of the loaded model (type ids, references, kinds, embeds).
  const walk = (value: unknown): void => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) return value.forEach(walk);
    const rec = value as Record<string, unknown>;
    for (const [key, inner] of Object.entries(rec)) {
      if (key === 'group' && typeof inner === 'string') rec[key] = group(inner);
      else if (key === 'apiVersion' && typeof inner === 'string') rec[key] = apiVersion(inner);
      else walk(inner);
    }
  };
  walk(loaded);
  walk(ctx.refs);
  walk(ctx.embeds);
}
