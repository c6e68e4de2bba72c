import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codegen } from '../codegen.js';
import { tempTree } from '../temp-tree.testing.js';
import { typecheckDir } from '../typecheck.testing.js';
import { typeWord } from './initialisms.js';

const ROOT = new URL('../../', import.meta.url).pathname;

type Schema = Record<string, unknown>;
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties });
const str: Schema = { type: 'string' };

/** A CustomResourceDefinition of one served version with `spec` and `status` as given. */
function crd(group: string, kind: string, spec: Schema, status: Schema = obj({ phase: str })): string {
  const plural = `${kind.toLowerCase()}s`;
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: obj({ spec, status }) },
        },
      ],
    },
  });
}

/** Generates `files` (CRDs) into a fresh folder that imports this checkout's runtime by path. */
function generate(files: Record<string, string>): string {
  const schemas = tempTree(files);
  const out = tempTree({ 'package.json': '{"type":"module"}\n' });
  codegen({ schemas: [schemas], out, runtime: { root: ROOT } });
  return out;
}

const exported = (text: string): string[] => [...text.matchAll(/^export (?:interface|type|const|function) (\w+)/gm)].map((m) => m[1]!);

describe('generated names', () => {
  it('never collide in a module and its index, whatever the schema names its kinds and fields', () => {
    const group = 'names.example.io';
    const out = generate({
      // `schema`, `client` and `default` fields beside the derived names of the kinds.
      'widget.yaml': crd(group, 'Widget', obj({ schema: obj({ x: str }), client: obj({ y: str }), default: obj({ z: str }) })),
      // A kind named as another kind's descriptor constant, and kinds named as the runtime's imports.
      'widget-schema.yaml': crd(group, 'WidgetSchema', obj({ a: str })),
      'gvk.yaml': crd(group, 'GroupVersionKind', obj({ b: str })),
      'transport.yaml': crd(group, 'Transport', obj({ c: str })),
      'registration.yaml': crd(group, 'KindRegistration', obj({ d: str })),
      'record.yaml': crd(group, 'Record', obj({ labels: { type: 'object', additionalProperties: str } })),
      'array.yaml': crd(group, 'Array', obj({ items: { type: 'array', items: { 'x-kubernetes-int-or-string': true } } })),
      // A field `client` of a kind named as the group/version's client interface prefix.
      'names.yaml': crd(group, 'NamesExampleIoV1', obj({ client: obj({ e: str }) })),
      // Two groups that print as the same namespace in the root index.
      'a-b.yaml': crd('a-b.example.io', 'Gadget', obj({ f: str })),
      'a.b.yaml': crd('a.b.example.io', 'Gadget', obj({ g: str })),
    });
    expect(typecheckDir(out)).toEqual([]);

    const dir = join(out, group, 'v1');
    const names = ['types', 'schema', 'kinds', 'client'].flatMap((a) => exported(readFileSync(join(dir, `${a}.ts`), 'utf8')));
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    // The kinds keep their names and the derived constants their pattern; the hoisted type yields.
    expect(names).toEqual(
      expect.arrayContaining(['WidgetSchema', 'WidgetSchemaSchema', 'WidgetSchemaDescriptor', 'NamesExampleIoV1Client']),
    );
    const types = readFileSync(join(dir, 'types.ts'), 'utf8');
    expect(types).toMatch(/ {2}schema\?: WidgetSpecSchema;/);
    expect(types).toMatch(/ {2}client\?: NamesExampleIoV1SpecClient;/);
    const root = readFileSync(join(out, 'index.ts'), 'utf8');
    expect(root).toContain("export * as abExampleIoV1 from './a-b.example.io/v1/index.js';");
    expect(root).toContain("export * as abExampleIoV12 from './a.b.example.io/v1/index.js';");
  });

  it('name a type by its place in its own kind: aliases for shared shapes, top-level types first, Go initialisms', () => {
    const group = 'issuers.example.io';
    const solver = obj({ dns01: obj({ acmeDNS: obj({ host: str }) }), http01: obj({ ingress: obj({ name: str }) }) });
    const spec = obj({ acme: obj({ solvers: { type: 'array', items: solver } }) });
    const out = generate({
      'cluster-issuer.yaml': crd(group, 'ClusterIssuer', spec),
      'issuer.yaml': crd(group, 'Issuer', spec),
      // A status deep in the spec does not take the kind's own status name.
      'store.yaml': crd(
        group,
        'Store',
        obj({ storage: obj({ volumeClaimTemplate: obj({ status: obj({ capacity: str }) }) }), oauth2: obj({ clientId: str }) }),
        obj({ ready: { type: 'boolean' } }),
      ),
    });
    expect(typecheckDir(out)).toEqual([]);
    const types = readFileSync(join(out, group, 'v1/types.ts'), 'utf8');
    const names = exported(types);
    expect(names).toEqual(
      expect.arrayContaining([
        'ClusterIssuerSpec',
        'IssuerSpec',
        'IssuerSolver',
        'IssuerDNS01',
        'IssuerACMEDNS',
        'IssuerHTTP01',
        'StoreOAuth2',
      ]),
    );
    expect(types).toContain('export type IssuerSpec = ClusterIssuerSpec;');
    expect(types).toContain('export type IssuerDNS01 = ClusterIssuerDNS01;');
    expect(types).toMatch(/export interface Issuer \{[^}]*\n {2}spec\?: IssuerSpec;/);
    expect(types).toMatch(/export interface Store \{[^}]*\n {2}status\?: StoreStatus;/);
    expect(types).toMatch(/export interface StoreStatus \{[^}]*\n {2}ready\?: boolean;/);
    expect(types).toMatch(/export interface StoreVolumeClaimTemplate \{[^}]*\n {2}status\?: StoreVolumeClaimTemplateStatus;/);
  });

  it('spell field names as Go spells initialisms', () => {
    const cases: [string, string][] = [
      ['dns01', 'DNS01'],
      ['http01', 'HTTP01'],
      ['oauth2', 'OAuth2'],
      ['acmeDNS', 'ACMEDNS'],
      ['acme', 'ACME'],
      ['tlsConfig', 'TLSConfig'],
      ['apiURL', 'APIURL'],
      ['clientId', 'ClientID'],
      ['podIPs', 'PodIPs'],
      ['externalIDs', 'ExternalIDs'],
      ['urls', 'URLs'],
      ['rfc2136', 'RFC2136'],
      ['route53', 'Route53'],
      ['caBundle', 'CABundle'],
      ['idleTimeout', 'IdleTimeout'],
      ['http_config', 'HTTPConfig'],
      ['spec', 'Spec'],
    ];
    expect(cases.map(([field]) => [field, typeWord(field)])).toEqual(cases);
  });
});
