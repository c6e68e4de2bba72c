/**
 * Loading an AuthorizationConfiguration into an authorizer chain: names (DNS-1123 labels, unique),
 * the webhook block (required for Webhook, forbidden otherwise), durations (timeout at most 30s),
 * versions, failure policy, at most 64 match conditions each compiled now with `request` declared,
 * and the webhook's address and trust read from its client config file. Every error names the
 * JSON path of its field.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isDNS1123Label, parseDuration } from '../api/index.js';
import { parseClientConfigFile } from '../client-node/index.js';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, type Authorizer, AuthorizerChain } from './authorize.js';
import { AuthConfigError, compileAt } from './cel-support.js';
import { RbacAuthorizer, type RbacLister } from './rbac.js';
import { SUBJECT_ACCESS_REVIEW_SPEC_SCHEMA } from './sar.js';
import { type RetryBackoff, WebhookAuthorizer, type WebhookCallObserver, type WebhookConnection } from './webhook.js';

/** The input shape: structurally the generated `AuthorizationConfiguration`. */
export interface AuthorizationConfigurationInput {
  readonly authorizers: readonly AuthorizerConfigurationInput[];
}

export interface AuthorizerConfigurationInput {
  readonly type: string;
  readonly name: string;
  readonly webhook?: {
    readonly authorizedTTL: string;
    readonly unauthorizedTTL: string;
    readonly timeout: string;
    readonly subjectAccessReviewVersion: string;
    readonly matchConditionSubjectAccessReviewVersion: string;
    readonly failurePolicy: string;
    readonly connectionInfo: { readonly type: string; readonly kubeConfigFile?: string };
    readonly matchConditions: readonly { readonly expression: string }[];
  };
}

export interface LoadAuthorizersOptions {
  /** Where RBAC objects come from; required when an RBAC authorizer is configured. */
  readonly rbacLister?: RbacLister;
  /** Reads a client config file (and the files it names); node:fs by default. */
  readonly readFile?: (path: string) => string;
  readonly retry?: RetryBackoff;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told of every webhook authorizer call (metrics). */
  readonly observeWebhook?: WebhookCallObserver;
  /** The suffix of the server's groups (`--group-suffix`), which names the reviews webhooks receive. */
  readonly groupSuffix?: string;
}

const MAX_TIMEOUT_MS = 30_000;
const MAX_MATCH_CONDITIONS = 64;

function duration(path: string, text: string): number {
  try {
    const ms = parseDuration(text).milliseconds;
    if (ms < 0) throw new Error('must not be negative');
    return ms;
  } catch (e) {
    throw new AuthConfigError(path, (e as Error).message);
  }
}

/**
 * The webhook's address and trust from a client config file: the cluster of the current context
 * (or the first cluster), its CA, and the user's client certificate or token.
 */
export function webhookConnectionFromClientConfig(
  path: string,
  readFile: (p: string) => string = (p) => readFileSync(p, 'utf8'),
): WebhookConnection {
  const file = parseClientConfigFile(readFile(path), path);
  const base = dirname(path);
  const fromFile = (p: string) => readFile(resolve(base, p));
  const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
  const context = file.contexts?.find((c) => c.name === file['current-context'])?.context;
  const cluster = (context ? file.clusters?.find((c) => c.name === context.cluster) : file.clusters?.[0])?.cluster;
  if (!cluster) throw new Error(`${path}: no cluster to reach the webhook`);
  const user = (context?.user ? file.users?.find((u) => u.name === context.user) : file.users?.[0])?.user;
  const ca = cluster['certificate-authority-data']
    ? decode(cluster['certificate-authority-data'])
    : cluster['certificate-authority']
      ? fromFile(cluster['certificate-authority'])
      : undefined;
  const cert = user?.['client-certificate-data']
    ? decode(user['client-certificate-data'])
    : user?.['client-certificate']
      ? fromFile(user['client-certificate'])
      : undefined;
  const key = user?.['client-key-data'] ? decode(user['client-key-data']) : user?.['client-key'] ? fromFile(user['client-key']) : undefined;
  return {
    url: cluster.server,
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
    ...(user?.token ? { token: user.token } : {}),
  };
}

function loadWebhook(path: string, c: AuthorizerConfigurationInput, options: LoadAuthorizersOptions): WebhookAuthorizer {
  const w = c.webhook;
  if (!w) throw new AuthConfigError(`${path}.webhook`, 'required when type is Webhook');
  const p = `${path}.webhook`;
  const timeoutMs = duration(`${p}.timeout`, w.timeout);
  if (timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) throw new AuthConfigError(`${p}.timeout`, 'must be greater than 0s and at most 30s');
  const authorizedTTLms = duration(`${p}.authorizedTTL`, w.authorizedTTL);
  const unauthorizedTTLms = duration(`${p}.unauthorizedTTL`, w.unauthorizedTTL);
  if (w.subjectAccessReviewVersion !== 'v1' && w.subjectAccessReviewVersion !== 'v1beta1') {
    throw new AuthConfigError(`${p}.subjectAccessReviewVersion`, 'must be v1 or v1beta1');
  }
  if (w.matchConditionSubjectAccessReviewVersion !== 'v1')
    throw new AuthConfigError(`${p}.matchConditionSubjectAccessReviewVersion`, 'must be v1');
  if (w.failurePolicy !== 'Deny' && w.failurePolicy !== 'NoOpinion')
    throw new AuthConfigError(`${p}.failurePolicy`, 'must be Deny or NoOpinion');
  if (w.matchConditions.length > MAX_MATCH_CONDITIONS)
    throw new AuthConfigError(`${p}.matchConditions`, `at most ${MAX_MATCH_CONDITIONS} conditions`);
  const seen = new Set<string>();
  const matchConditions = w.matchConditions.map((m, i) => {
    const at = `${p}.matchConditions[${i}].expression`;
    if (seen.has(m.expression)) throw new AuthConfigError(at, 'duplicate expression');
    seen.add(m.expression);
    return compileAt(at, m.expression, { request: SUBJECT_ACCESS_REVIEW_SPEC_SCHEMA }, ['bool']);
  });
  let connection: WebhookConnection;
  if (w.connectionInfo.type === 'KubeConfigFile') {
    if (!w.connectionInfo.kubeConfigFile)
      throw new AuthConfigError(`${p}.connectionInfo.kubeConfigFile`, 'required when type is KubeConfigFile');
    try {
      connection = webhookConnectionFromClientConfig(w.connectionInfo.kubeConfigFile, options.readFile);
    } catch (e) {
      throw new AuthConfigError(`${p}.connectionInfo.kubeConfigFile`, (e as Error).message);
    }
  } else {
    throw new AuthConfigError(
      `${p}.connectionInfo.type`,
      `${JSON.stringify(w.connectionInfo.type)} is not supported by this server; use KubeConfigFile`,
    );
  }
  return new WebhookAuthorizer({
    name: c.name,
    connection,
    subjectAccessReviewVersion: w.subjectAccessReviewVersion,
    authorizedTTLms,
    unauthorizedTTLms,
    timeoutMs,
    failurePolicy: w.failurePolicy,
    matchConditions,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.observeWebhook ? { observe: options.observeWebhook } : {}),
    ...(options.groupSuffix ? { groupSuffix: options.groupSuffix } : {}),
  });
}

/** Builds the authorizers of a configuration, in order; throws AuthConfigError. */
export function loadAuthorizers(config: AuthorizationConfigurationInput, options: LoadAuthorizersOptions = {}): Authorizer[] {
  if (config.authorizers.length === 0) throw new AuthConfigError('authorizers', 'at least one authorizer is required');
  const names = new Set<string>();
  return config.authorizers.map((c, i) => {
    const path = `authorizers[${i}]`;
    const problems = isDNS1123Label(c.name);
    if (problems.length > 0) throw new AuthConfigError(`${path}.name`, problems.join('; '));
    if (names.has(c.name)) throw new AuthConfigError(`${path}.name`, `duplicate name ${JSON.stringify(c.name)}`);
    names.add(c.name);
    if (c.type !== 'Webhook' && c.webhook !== undefined) throw new AuthConfigError(`${path}.webhook`, 'only allowed when type is Webhook');
    switch (c.type) {
      case 'Webhook':
        return loadWebhook(path, c, options);
      case 'RBAC':
        if (!options.rbacLister) throw new AuthConfigError(`${path}.type`, 'RBAC needs a source of RBAC objects (rbacLister)');
        return new RbacAuthorizer(options.rbacLister, c.name);
      case 'AlwaysAllow':
        return new AlwaysAllowAuthorizer(c.name);
      case 'AlwaysDeny':
        return new AlwaysDenyAuthorizer(c.name);
      default:
        throw new AuthConfigError(
          `${path}.type`,
          `${JSON.stringify(c.type)} is not supported by this server (Webhook, RBAC, AlwaysAllow, AlwaysDeny)`,
        );
    }
  });
}

/** loadAuthorizers, wrapped in a chain. */
export function loadAuthorizerChain(config: AuthorizationConfigurationInput, options: LoadAuthorizersOptions = {}): AuthorizerChain {
  return new AuthorizerChain(loadAuthorizers(config, options));
}
