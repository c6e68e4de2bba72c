import { EXEC_API_VERSIONS, EXEC_INFO_ENV, KUBERNETES_EXEC_INFO_ENV } from '../client-node/index.js';
import { isJsonObject } from '../json/index.js';
import type { ExecCredential } from './types.js';

/** A credential an exec plugin returns: a bearer token, or a client certificate and key (PEM). */
export type ExecCredentialStatus = NonNullable<ExecCredential['status']>;

export type ExecCredentialHandler = (request: ExecCredential) => ExecCredentialStatus | Promise<ExecCredentialStatus>;

export interface ExecPluginIo {
  env?: NodeJS.ProcessEnv;
  write?: (text: string) => void;
}

/**
 * Runs an exec credential plugin: reads the request ExecCredential from `SVC_EXEC_INFO`, or from
 * `KUBERNETES_EXEC_INFO` when a real system's client (kubectl, client-go, svckit's client with a
 * `client.authentication.k8s.io` exec entry) runs it (its apiVersion says which version to
 * answer; svckit's v1 when neither is set), asks `handler`, and prints the
 * ExecCredential with `status` on stdout. The secrets pass only through memory and the pipe.
 */
export async function execCredentialPlugin(handler: ExecCredentialHandler, io: ExecPluginIo = {}): Promise<void> {
  const env = io.env ?? process.env;
  const write = io.write ?? ((text: string) => void process.stdout.write(text));
  const name = env[EXEC_INFO_ENV] ? EXEC_INFO_ENV : KUBERNETES_EXEC_INFO_ENV;
  const request = readExecInfo(env[name], name);
  const status = await handler(request);
  if (!status.token && !(status.clientCertificateData && status.clientKeyData))
    throw new Error('an exec credential needs a token, or clientCertificateData with clientKeyData');
  const answer: ExecCredential = { apiVersion: request.apiVersion, kind: 'ExecCredential', status };
  write(`${JSON.stringify(answer)}\n`);
}

function readExecInfo(text: string | undefined, name: string): ExecCredential {
  if (text === undefined || text === '')
    return { apiVersion: 'client.authentication.svc.io/v1', kind: 'ExecCredential', spec: { interactive: false } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${name} is not JSON: ${(e as Error).message}`);
  }
  if (!isJsonObject(value) || value.kind !== 'ExecCredential') throw new Error(`${name} does not hold an ExecCredential`);
  if (!(EXEC_API_VERSIONS as readonly unknown[]).includes(value.apiVersion))
    throw new Error(`${name}: unsupported apiVersion ${JSON.stringify(value.apiVersion)}`);
  return value as unknown as ExecCredential;
}
