/**
 * `/openapi/v2`: one Swagger 2.0 document of every served group/version, written from the same
 * OpenAPI v3 documents `/openapi/v3` serves (kube-openapi's `pkg/builder` shape, a subset: no
 * `securityDefinitions`, `parameters` or `responses` sections shared at the top, no `oneOf`).
 */

type Json = Record<string, unknown>;

const COMPONENT_REF = '#/components/schemas/';

/** Go packages of the spec's built-in groups' types, by the group's first label (kube-openapi names definitions by package). */
const PACKAGES: Record<string, string> = {
  meta: 'io.k8s.apimachinery.pkg.apis.meta',
  apiextensions: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
  ...Object.fromEntries(
    [
      'core',
      'apps',
      'autoscaling',
      'batch',
      'policy',
      'networking',
      'flowcontrol',
      'admissionregistration',
      'authorization',
      'rbac',
      'authentication',
      'storage',
      'discovery',
      'certificates',
      'coordination',
      'events',
      'scheduling',
    ].map((label) => [label, `io.k8s.api.${label}`]),
  ),
};

/**
 * The v2 name of a v3 component (`<group>.<version>.<Kind>`, the spec's group): upstream's
 * (`io.k8s.api.apps.v1.Deployment`) for built-in groups, and a custom resource's reversed group
 * (`io.svc.example.stable.v1.CronTab`), as upstream names a CustomResourceDefinition's.
 */
export function definitionName(component: string): string {
  const m = /^(.+)\.(v\d+(?:(?:alpha|beta)\d+)?)\.([^.]+)$/.exec(component);
  if (!m) return component;
  const [, group, version, kind] = m as unknown as [string, string, string, string];
  const label = group.split('.')[0]!;
  const pkg = PACKAGES[label] ?? group.split('.').reverse().join('.');
  return `${pkg}.${version}.${kind}`;
}

/** Swagger 2.0 from the served v3 documents: their schemas as `definitions`, their paths' operations. */
export function swaggerDocument(documents: readonly Json[], version: string): Json {
  const definitions: Json = {};
  const paths: Json = {};
  for (const doc of documents) {
    const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
    for (const [name, schema] of Object.entries(schemas)) {
      const v2 = definitionName(name);
      if (!(v2 in definitions)) definitions[v2] = swaggerSchema(schema);
    }
    for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) paths[path] = pathItem(item);
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version }, paths, definitions };
}

/** A v3 schema in v2 terms: component references renamed, `allOf` of one reference as that reference, int-or-string as upstream writes it. */
function swaggerSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(swaggerSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === 'nullable' || key === 'oneOf') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_REF)) {
      out.$ref = `#/definitions/${definitionName(value.slice(COMPONENT_REF.length))}`;
    } else if (key === 'anyOf' && s['x-kubernetes-int-or-string'] === true) {
      out.type = 'string';
      out.format = 'int-or-string';
    } else if (key === 'allOf' && Array.isArray(value) && value.length === 1) {
      Object.assign(out, swaggerSchema(value[0]));
    } else if (key === 'properties' || key === 'patternProperties') {
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, swaggerSchema(v)]));
    } else if (key === 'x-kubernetes-group-version-kind' || key === 'enum' || key === 'default' || key === 'example') {
      out[key] = value;
    } else {
      out[key] = swaggerSchema(value);
    }
  }
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function pathItem(item: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === 'parameters') out.parameters = (value as Json[]).map(parameter);
    else if (METHODS.includes(key)) out[key] = operation(value as Json);
  }
  return out;
}

/** A query or path parameter: its schema's type written on the parameter itself. */
function parameter(p: Json): Json {
  const { schema, ...rest } = p;
  return { ...rest, ...((schema ?? {}) as Json) };
}

function operation(op: Json): Json {
  const out: Json = {};
  const produces = new Set<string>();
  for (const [key, value] of Object.entries(op)) {
    if (key === 'parameters') out.parameters = [...((out.parameters as Json[] | undefined) ?? []), ...(value as Json[]).map(parameter)];
    else if (key === 'requestBody') {
      const body = value as { content?: Record<string, { schema?: unknown }>; required?: boolean };
      const [consumes, media] = Object.entries(body.content ?? {})[0] ?? [];
      out.consumes = Object.keys(body.content ?? {});
      const param = { name: 'body', in: 'body', required: body.required ?? false, schema: swaggerSchema(media?.schema ?? {}) };
      if (consumes !== undefined) out.parameters = [param, ...((out.parameters as Json[] | undefined) ?? [])];
    } else if (key === 'responses') {
      const responses: Json = {};
      for (const [code, r] of Object.entries(
        value as Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>,
      )) {
        const contents = Object.entries(r.content ?? {});
        for (const [media] of contents) produces.add(media);
        const schema = contents[0]?.[1].schema;
        responses[code] = { description: r.description ?? '', ...(schema ? { schema: swaggerSchema(schema) } : {}) };
      }
      out.responses = responses;
    } else out[key] = value;
  }
  if (produces.size > 0) out.produces = [...produces];
  out.schemes = ['https'];
  return out;
}
