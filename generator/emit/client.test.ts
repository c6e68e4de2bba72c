import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allKinds as builtInKinds } from '../../generated/kinds.js';
import type { ClientConfig } from '../../runtime/client/index.js';
import type { KindRegistration } from '../../runtime/schema/index.js';
import { ApiServer } from '../../runtime/server/index.js';
import { builtinHandlers } from '../../reference/kinds/index.js';
import { createStore } from '../../runtime/store/index.js';
import { codegen } from '../codegen.js';
import { typecheckDir } from '../typecheck.testing.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const CRDS = join(ROOT, 'generator/testdata/crds');

let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'svckit-client-gen-'));
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  // Imported and type-checked from a temporary folder, so it reaches this checkout's runtime by path.
  codegen({ schemas: [CRDS], out, cwd: ROOT, runtime: { root: ROOT } });
});

describe('the generated client', () => {
  it('has one accessor per resource, custom resources without strategic merge patch', () => {
    const text = readFileSync(join(out, 'pki.example.io/v1/client.ts'), 'utf8');
    expect(text).toContain('export interface PkiExampleIoV1Client {');
    expect(text).toContain(
      "  /** {@link Certificate}: `certificates(namespace)`, `certificates.all()` (subresources status). */\n  readonly certificates: NamespacedCustomResource<Certificate, CertificateList, 'status'>;",
    );
    expect(text).toContain("  readonly clusterIssuers: ClusterCustomResource<ClusterIssuer, ClusterIssuerList, 'status'>;");
    expect(text).toContain(
      "clusterIssuers: clusterResource<ClusterIssuer, ClusterIssuerList>(transport, { group: 'pki.example.io', version: 'v1', resource: 'clusterissuers', kind: 'ClusterIssuer', listKind: 'ClusterIssuerList', namespaced: false, subresources: ['status'], custom: true }),",
    );
    const root = readFileSync(join(out, 'client.ts'), 'utf8');
    expect(root).toContain('  readonly acme: {\n    readonly v1: AcmePkiExampleIoV1Client;\n  };');
    expect(root).toContain('  readonly pki: {\n    readonly v1: PkiExampleIoV1Client;\n  };');
  });

  it('names accessors as people write them: initialisms lowered, irregular plurals kept', () => {
    const text = readFileSync(join(out, 'gateway.example.io/v1/client.ts'), 'utf8');
    expect(text.match(/readonly \w+:/g)).toEqual(['readonly backendTLSPolicies:', 'readonly grpcRoutes:', 'readonly httpRoutes:']);
    const root = readFileSync(join(out, 'client.ts'), 'utf8');
    expect(root).toContain('  readonly gateway: {\n    readonly v1: GatewayExampleIoV1Client;\n');
  });

  it("type-checks in strict mode for a project's CRDs, with typed patch and apply bodies", { timeout: 180_000 }, () => {
    writeFileSync(
      join(out, 'use.ts'),
      [
        "import { createClient } from './client.js';",
        "const client = createClient({ server: 'http://localhost' });",
        "const certificates = client.pki.v1.certificates('ns');",
        "void certificates.mergePatch('c', { spec: { secretName: 's', dnsNames: ['a'] } });",
        "void certificates.apply({ apiVersion: 'pki.example.io/v1', kind: 'Certificate', metadata: { name: 'c' }, spec: { secretName: 's' } }, { fieldManager: 'me' });",
        "void certificates.jsonPatch('c', [{ op: 'replace', path: '/spec/secretName', value: 't' }]);",
        '// @ts-expect-error custom resources have no strategic merge patch',
        'void certificates.strategicMergePatch;',
        '// @ts-expect-error a misspelled field is a compile error',
        "void certificates.mergePatch('c', { spec: { secretNam: 's' } });",
        '// @ts-expect-error apply needs the kind',
        "void certificates.apply({ apiVersion: 'pki.example.io/v1', metadata: { name: 'c' } }, { fieldManager: 'me' });",
        '// @ts-expect-error apply needs a fieldManager',
        "void certificates.apply({ apiVersion: 'pki.example.io/v1', kind: 'Certificate', metadata: { name: 'c' } }, {});",
        '// @ts-expect-error a cluster-scoped resource takes no namespace',
        "void client.pki.v1.clusterIssuers('ns');",
        '// @ts-expect-error reads across namespaces only',
        'void client.pki.v1.certificates.all().create;',
        "void client.pki.v1.certificates.all().watch({ labelSelector: { app: 'web' } });",
        '',
      ].join('\n'),
    );
    expect(typecheckDir(out)).toEqual([]);
  });
});

describe('the generated client against a server that serves the CRDs', () => {
  let server: ApiServer;
  let url: string;
  beforeAll(async () => {
    const { allKinds } = (await import(join(out, 'kinds.ts'))) as { allKinds: readonly KindRegistration[] };
    server = new ApiServer({ kinds: [...builtInKinds, ...allKinds], store: await createStore('memory'), handlers: builtinHandlers });
    url = await server.listen(0);
  });
  afterAll(() => server.close());

  it('creates, lists, patches, watches and deletes certificates', async () => {
    type Generated = typeof import('../../generated/client.js');
    const { createClient } = (await import(join(out, 'client.ts'))) as {
      createClient: (config: ClientConfig) => ReturnType<Generated['createClient']> & Record<string, never>;
    };
    const builtIn = (await import('../../generated/client.js')).createClient({ server: url });
    await builtIn.core.v1.namespaces.create({ metadata: { name: 'certs' } });

    // The runtime types of the temp tree are its own module instances; the test reads them structurally.
    const client = createClient({ server: url, namespace: 'certs' }) as unknown as {
      pki: {
        v1: {
          certificates: (ns?: string) => import('../../runtime/client/index.js').ResourceClient<{
            metadata?: { name?: string };
            spec?: { secretName?: string; issuerRef?: { name: string }; dnsNames?: string[] };
          }>;
        };
      };
    };
    const certificates = client.pki.v1.certificates();
    await certificates.create({
      metadata: { name: 'web' },
      spec: { secretName: 'web-tls', issuerRef: { name: 'letsencrypt' }, dnsNames: ['web.example'] },
    });
    const events: string[] = [];
    const controller = new AbortController();
    const watching = (async () => {
      for await (const e of certificates.watch({ signal: controller.signal })) events.push(`${e.type} ${e.object.metadata?.name}`);
    })();
    // The patch waits for the watch's first event: the watch has its start version by then, whether
    // it syncs by watch-list or (with the WatchList gate off, the 1.30 default) by list and watch.
    for (const end = Date.now() + 5000; events.length < 1 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
    const patched = await certificates.mergePatch('web', { spec: { secretName: 'web-tls-2' } });
    expect(patched.spec?.secretName).toBe('web-tls-2');
    expect((await certificates.list()).items.map((c) => c.metadata?.name)).toEqual(['web']);
    await certificates.delete('web');
    const end = Date.now() + 5000;
    while (events.length < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await watching;
    expect(events).toEqual(['ADDED web', 'MODIFIED web', 'DELETED web']);
  });
});
