/**
 * `svckit serve`'s admission flags: which plugins run and their configuration, mapped to the
 * reference server's admission plugins. Errors name the file and the field (UsageError: exit 2).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { allKinds } from '../../generated/kinds.js';
import { webhookConnectionFromClientConfig } from '../../runtime/auth/index.js';
import { DocumentValidator, textReport } from '../../runtime/documents/index.js';
import {
  type AdmissionPluginSource,
  type EventLimit,
  eventRateLimit,
  imagePolicyWebhook,
  mutatingWebhookAdmission,
  validatingAdmissionPolicy,
  validatingWebhookAdmission,
} from '../../runtime/server/index.js';
import { UsageError } from './usage-error.js';

export const ADMISSION_OPTIONS = {
  'enable-admission-plugins': { type: 'string', default: '' },
  'disable-admission-plugins': { type: 'string', default: '' },
  'admission-control-config-file': { type: 'string' },
} as const;

export const ADMISSION_USAGE =
  '[--enable-admission-plugins EventRateLimit,ImagePolicyWebhook] [--disable-admission-plugins ...] [--admission-control-config-file <file>]';

/** The plugins this server has, in the order upstream runs them (the flags' order does not matter). */
const ORDER = [
  'ImagePolicyWebhook',
  'EventRateLimit',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
] as const;
type PluginName = (typeof ORDER)[number];
/** Enabled unless disabled, as upstream's defaults. */
const DEFAULT_ENABLED: readonly PluginName[] = ['MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook'];
const ADMISSION_CONFIG_VERSIONS = new Set(['apiserver.config.svc.io/v1', 'apiserver.svc.io/v1alpha1']);

export interface AdmissionFlags {
  'enable-admission-plugins'?: string;
  'disable-admission-plugins'?: string;
  'admission-control-config-file'?: string;
}

/** The admission plugins the flags ask for, configured (ReferenceServerOptions.admission). */
export function admissionFromFlags(values: AdmissionFlags): AdmissionPluginSource[] {
  const enabled = new Set<PluginName>(DEFAULT_ENABLED);
  for (const name of names('--enable-admission-plugins', values['enable-admission-plugins'])) enabled.add(name);
  for (const name of names('--disable-admission-plugins', values['disable-admission-plugins'])) enabled.delete(name);
  const file = values['admission-control-config-file'];
  const configs = file ? readAdmissionConfiguration(file) : new Map<string, PluginConfig>();
  return ORDER.filter((name) => enabled.has(name)).map((name) => {
    switch (name) {
      case 'MutatingAdmissionWebhook':
        return mutatingWebhookAdmission();
      case 'ValidatingAdmissionPolicy':
        return validatingAdmissionPolicy();
      case 'ValidatingAdmissionWebhook':
        return validatingWebhookAdmission();
      case 'EventRateLimit':
        return eventRateLimit(eventLimits(required(configs, name, file)));
      case 'ImagePolicyWebhook':
        return imagePolicy(required(configs, name, file));
    }
  });
}

function names(flag: string, text: string | undefined): PluginName[] {
  const list = (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of list)
    if (!(ORDER as readonly string[]).includes(n))
      throw new UsageError(`${flag}: unknown admission plugin ${JSON.stringify(n)}; known: ${ORDER.join(', ')}`);
  return list as PluginName[];
}

/** A plugin's configuration document and where it came from (for messages and relative paths). */
interface PluginConfig {
  value: unknown;
  where: string;
  dir: string;
}

function required(configs: Map<string, PluginConfig>, name: PluginName, file: string | undefined): PluginConfig {
  const c = configs.get(name);
  if (!c)
    throw new UsageError(
      `${name} needs its configuration: a plugin entry named ${name} in ${file ? file : '--admission-control-config-file'}`,
    );
  return c;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`${what} ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
}

const validator = new DocumentValidator(allKinds);

/** Checks a document of a known kind against its schema; returns it defaulted. */
function validated(where: string, text: string): Record<string, unknown> {
  const results = validator.validateText(where, text, { keepDocuments: true, strict: true });
  if (results.length !== 1) throw new UsageError(`${where}: expected one document, found ${results.length}`);
  const [result] = results;
  if (result!.status === 'invalid') throw new UsageError(`${where} is not valid:\n${textReport(results).trimEnd()}`);
  return result!.document as Record<string, unknown>;
}

/** AdmissionConfiguration: each plugin's configuration, embedded or from `path` (relative to the file); embedded wins. */
function readAdmissionConfiguration(file: string): Map<string, PluginConfig> {
  const doc = validated(file, readText(file, '--admission-control-config-file'));
  if (!ADMISSION_CONFIG_VERSIONS.has(String(doc.apiVersion)) || doc.kind !== 'AdmissionConfiguration')
    throw new UsageError(`${file}: expected an AdmissionConfiguration (apiserver.config.svc.io/v1), found ${doc.apiVersion} ${doc.kind}`);
  const out = new Map<string, PluginConfig>();
  const plugins = (doc.plugins as Array<{ name: string; path?: string; configuration?: unknown }> | undefined) ?? [];
  for (const [i, p] of plugins.entries()) {
    if (!(ORDER as readonly string[]).includes(p.name))
      throw new UsageError(`${file}: plugins[${i}].name: unknown admission plugin ${JSON.stringify(p.name)}; known: ${ORDER.join(', ')}`);
    if (p.configuration !== undefined && p.configuration !== null) {
      out.set(p.name, { value: p.configuration, where: `${file}: plugins[${i}].configuration`, dir: dirname(resolve(file)) });
    } else if (p.path) {
      const path = resolve(dirname(resolve(file)), p.path);
      out.set(p.name, { value: parseYaml(readText(path, `${file}: plugins[${i}].path`), path), where: path, dir: dirname(path) });
    }
  }
  return out;
}

function parseYaml(text: string, where: string): unknown {
  try {
    return parse(text);
  } catch (e) {
    throw new UsageError(`${where}: not YAML or JSON: ${(e as Error).message}`);
  }
}

/** EventRateLimit's `Configuration` (eventratelimit.admission.svc.io/v1alpha1), checked against its schema. */
function eventLimits(c: PluginConfig): EventLimit[] {
  const doc = validated(c.where, JSON.stringify(c.value));
  if (doc.apiVersion !== 'eventratelimit.admission.svc.io/v1alpha1' || doc.kind !== 'Configuration')
    throw new UsageError(
      `${c.where}: expected an eventratelimit.admission.svc.io/v1alpha1 Configuration, found ${doc.apiVersion} ${doc.kind}`,
    );
  return doc.limits as EventLimit[];
}

/** ImagePolicyWebhook's `imagePolicy` (upstream's shape; the spec does not show it): TTLs in seconds, backoff in ms. */
function imagePolicy(c: PluginConfig): AdmissionPluginSource {
  const p = (c.value as { imagePolicy?: Record<string, unknown> } | null)?.imagePolicy;
  if (!p || typeof p !== 'object') throw new UsageError(`${c.where}: imagePolicy: Required value`);
  if (typeof p.kubeConfigFile !== 'string' || p.kubeConfigFile === '')
    throw new UsageError(`${c.where}: imagePolicy.kubeConfigFile: Required value: the client config file that names the backend`);
  const number = (field: string, min: number): number | undefined => {
    const v = p[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
      throw new UsageError(`${c.where}: imagePolicy.${field}: must be an integer of at least ${min}, not ${JSON.stringify(v)}`);
    return v;
  };
  const path = resolve(c.dir, p.kubeConfigFile);
  let connection: ReturnType<typeof webhookConnectionFromClientConfig>;
  try {
    connection = webhookConnectionFromClientConfig(path);
  } catch (e) {
    throw new UsageError(`${c.where}: imagePolicy.kubeConfigFile: ${(e as Error).message}`);
  }
  const allowTTL = number('allowTTL', 0);
  const denyTTL = number('denyTTL', 0);
  const retryBackoff = number('retryBackoff', 0);
  return imagePolicyWebhook({
    connection,
    ...(allowTTL !== undefined ? { allowTTL } : {}),
    ...(denyTTL !== undefined ? { denyTTL } : {}),
    ...(retryBackoff !== undefined ? { retryBackoff } : {}),
    defaultAllow: p.defaultAllow === true,
  });
}
