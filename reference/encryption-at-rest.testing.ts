/** Test support for encryption at rest: configuration files, servers over them, and raw-byte searches. */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allKinds } from '../generated/kinds.js';
import { type ReferenceServerOptions, type RunningServer, startReferenceServer } from './reference-server.js';
import { EncryptionAtRest } from '../runtime/encryption/index.js';

export const newKey = (bytes = 32): string => randomBytes(bytes).toString('base64');

/** An EncryptionConfiguration for `secrets` with the given provider list (YAML flow items). */
export function writeSecretsConfig(dir: string, name: string, providers: string[]): string {
  return writeEncryptionConfig(dir, name, ['secrets'], providers);
}

/** An EncryptionConfiguration of one entry: `resources` (`crontabs.stable.example.com`, `*.*`...) with the given providers. */
export function writeEncryptionConfig(dir: string, name: string, resources: string[], providers: string[]): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `apiVersion: apiserver.config.svc.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [${resources.map((r) => `"${r}"`).join(', ')}]
    providers:
${providers.map((p) => `      - ${p}`).join('\n')}
`,
  );
  return file;
}

export const aescbc = (...keys: [string, string][]): string =>
  `aescbc: {keys: [${keys.map(([n, s]) => `{name: ${n}, secret: "${s}"}`).join(', ')}]}`;
export const aesgcm = (...keys: [string, string][]): string =>
  `aesgcm: {keys: [${keys.map(([n, s]) => `{name: ${n}, secret: "${s}"}`).join(', ')}]}`;
export const secretboxProvider = (...keys: [string, string][]): string =>
  `secretbox: {keys: [${keys.map(([n, s]) => `{name: ${n}, secret: "${s}"}`).join(', ')}]}`;
export const kms = (name: string, endpoint: string): string => `kms: {apiVersion: v2, name: ${name}, endpoint: "${endpoint}"}`;
export const IDENTITY = 'identity: {}';

export async function startEncrypted(store: string, config: string, options: ReferenceServerOptions = {}): Promise<RunningServer> {
  return startReferenceServer({ port: 0, store, encryption: await EncryptionAtRest.load(config, allKinds), ...options });
}

const json = { 'content-type': 'application/json' };

/** Creates a Secret whose one data value is `sentinel`; resolves with the created object. */
export async function createSecret(url: string, name: string, sentinel: string): Promise<Record<string, any>> {
  const res = await fetch(`${url}/api/v1/namespaces/default/secrets`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name },
      data: { password: Buffer.from(sentinel).toString('base64') },
    }),
  });
  if (res.status !== 201) throw new Error(`create secret ${name}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

/** Creates the CronTab CustomResourceDefinition in `group` and waits until it is served (polling; the bound only ends a hung test). */
export async function defineCronTabs(url: string, group: string): Promise<void> {
  const created = await fetch(`${url}/apis/apiextensions.svc.io/v1/customresourcedefinitions`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      apiVersion: 'apiextensions.svc.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `crontabs.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } } },
            },
          },
        ],
      },
    }),
  });
  if (created.status !== 201) throw new Error(`create crontabs.${group}: ${created.status} ${await created.text()}`);
  for (let i = 0; i < 500; i++) {
    if ((await fetch(`${url}/apis/${group}/v1/namespaces/default/crontabs`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`crontabs.${group} never served`);
}

/** Creates a CronTab of `group` whose cronSpec is `sentinel`. */
export async function createCronTab(url: string, group: string, name: string, sentinel: string): Promise<void> {
  const res = await fetch(`${url}/apis/${group}/v1/namespaces/default/crontabs`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name }, spec: { cronSpec: sentinel } }),
  });
  if (res.status !== 201) throw new Error(`create crontab ${name}: ${res.status} ${await res.text()}`);
}

export async function createConfigMap(url: string, name: string, sentinel: string): Promise<void> {
  const res = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value: sentinel } }),
  });
  if (res.status !== 201) throw new Error(`create configmap ${name}: ${res.status} ${await res.text()}`);
}

export async function getSecret(url: string, name: string): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${url}/api/v1/namespaces/default/secrets/${name}`);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

export async function putSecret(url: string, object: Record<string, any>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${url}/api/v1/namespaces/default/secrets/${object.metadata.name}`, {
    method: 'PUT',
    headers: json,
    body: JSON.stringify(object),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

export const decoded = (secret: Record<string, any>): string => Buffer.from(secret.data.password, 'base64').toString();

/**
 * The needles (as UTF-8, and as the base64 a Secret's data holds) found anywhere in the files under
 * `dir`: the raw bytes the backend wrote, whatever its format.
 */
export function foundInFiles(dir: string, needles: string[]): string[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  statSync(dir).isDirectory() ? walk(dir) : files.push(dir);
  const found = new Set<string>();
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const needle of needles) {
      if (bytes.includes(Buffer.from(needle)) || bytes.includes(Buffer.from(Buffer.from(needle).toString('base64')))) found.add(needle);
    }
  }
  return [...found].sort();
}
