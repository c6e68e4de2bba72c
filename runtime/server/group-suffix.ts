import { SPEC_GROUP_SUFFIX, apiVersionWithSuffix, groupWithSuffix } from '../api/index.js';
import type { ProtobufPackage } from '../codec/index.js';
import type { KindRegistration, ObjectSchema } from '../schema/index.js';

/** What a server is built from that names groups: its kinds, OpenAPI documents and Protobuf packages. */
export interface GroupNamed {
  kinds: readonly KindRegistration[];
  openApiDocuments?: Record<string, () => Promise<Record<string, unknown>>> | undefined;
  protobufPackages?: readonly ProtobufPackage[] | undefined;
}

/**
 * The same kinds, documents and packages with every spec group (`<name>.svc.io`) renamed to end in
 * `suffix` (`--group-suffix k8s.io`). The generated code keeps the spec's names; this is the one
 * place they change, once, when a server starts, so everything after (routing, discovery,
 * storage, conversion, authorization) only ever sees the served names.
 */
export function withGroupSuffix<T extends GroupNamed>(named: T, suffix: string): T {
  if (suffix === SPEC_GROUP_SUFFIX) return named;
  return {
    ...named,
    kinds: named.kinds.map((k) => renameKind(k, suffix)),
    ...(named.openApiDocuments ? { openApiDocuments: renameDocuments(named.openApiDocuments, suffix) } : {}),
    ...(named.protobufPackages
      ? {
          protobufPackages: named.protobufPackages.map((p) => ({
            ...p,
            kinds: p.kinds.map((k) => ({ ...k, apiVersion: apiVersionWithSuffix(k.apiVersion, suffix) })),
          })),
        }
      : {}),
  };
}

function renameKind(k: KindRegistration, suffix: string): KindRegistration {
  const apiVersion = apiVersionWithSuffix(k.apiVersion, suffix);
  if (apiVersion === k.apiVersion) return k;
  return {
    ...k,
    group: groupWithSuffix(k.group, suffix),
    apiVersion,
    schema: withApiVersionEnum(k.schema, apiVersion),
    ...(k.resource
      ? {
          resource: {
            ...k.resource,
            // Annotation keys are prefixed by a group's name (`flowcontrol.svc.io/v1beta3-...`).
            conversion: k.resource.conversion.map((rule) =>
              'preserveZeroAnnotation' in rule
                ? { ...rule, preserveZeroAnnotation: apiVersionWithSuffix(rule.preserveZeroAnnotation, suffix) }
                : rule,
            ),
          },
        }
      : {}),
    ...(k.lifecycle?.replacement
      ? { lifecycle: { ...k.lifecycle, replacement: apiVersionWithSuffix(k.lifecycle.replacement, suffix) } }
      : {}),
  };
}

function withApiVersionEnum(schema: ObjectSchema, apiVersion: string): ObjectSchema {
  return {
    ...schema,
    fields: schema.fields.map((f) =>
      f.name === 'apiVersion' && f.schema.enum ? { ...f, schema: { ...f.schema, enum: [apiVersion] } } : f,
    ),
  };
}

/** A group or an apiVersion of the spec, as a whole string (descriptions and type names are left alone). */
const SPEC_NAME = new RegExp(`^[a-z0-9.-]+\\.${SPEC_GROUP_SUFFIX.replace('.', '\\.')}(/v\\d+((alpha|beta)\\d+)?)?$`);

function renameDocuments(
  documents: Record<string, () => Promise<Record<string, unknown>>>,
  suffix: string,
): Record<string, () => Promise<Record<string, unknown>>> {
  const rename = (text: string) =>
    !SPEC_NAME.test(text) ? text : text.includes('/') ? apiVersionWithSuffix(text, suffix) : groupWithSuffix(text, suffix);
  // Path keys (`/apis/<group>/<version>/...`) name the group too.
  const renameKey = (key: string) => key.replace(/^\/apis\/([^/]+)\//, (_m, group: string) => `/apis/${groupWithSuffix(group, suffix)}/`);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return rename(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([key, inner]) => [renameKey(key), walk(inner)]));
    return v;
  };
  const out: Record<string, () => Promise<Record<string, unknown>>> = {};
  for (const [path, load] of Object.entries(documents)) {
    // Keys are `apis/<group>/<version>`.
    const renamed = path.replace(/^apis\/([^/]+)\//, (_m, group: string) => `apis/${groupWithSuffix(group, suffix)}/`);
    out[renamed] = async () => walk(await load()) as Record<string, unknown>;
  }
  return out;
}
