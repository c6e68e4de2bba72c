import { SERVE_CONTROLLERS_OPTIONS, SERVE_CONTROLLERS_USAGE, serveControllers } from './serve-controllers.js';
import { parseCommandLine } from './parse-command-line.js';
import { parseDuration } from '../../runtime/api/index.js';
import { allKinds } from '../../generated/kinds.js';
import { parseServiceCidr } from '../../reference/kinds/index.js';
import { DEFAULT_RELEASE, checkRules } from '../../runtime/server/index.js';
import { DEFAULT_STORE, startReferenceServer } from '../../reference/index.js';
import { projectKinds } from '../../reference/custom-resources/index.js';
import { ENCRYPTION_SERVE_USAGE, encryptionFromFlags, encryptionServeOptions } from './serve-encryption.js';
import { REPLICA_USAGE, replicaOptions, replicaServerOptions } from './serve-replicas.js';
import { SERVE_AUDIT_OPTIONS, SERVE_AUDIT_USAGE, serveAuditOptions } from './serve-audit.js';
import { SERVE_VERSION_OPTIONS, SERVE_VERSION_USAGE, serveVersionOptions } from './serve-versions.js';
import { ADMISSION_OPTIONS, ADMISSION_USAGE, admissionFromFlags } from './serve-admission.js';
import { SERVE_ACCESS_OPTIONS, SERVE_ACCESS_USAGE, serveAccess } from './serve-access.js';
import { SERVE_CRD_OPTIONS, SERVE_CRD_USAGE, crdsFromFlags } from './serve-crds.js';
import { GROUP_SUFFIX_OPTIONS, GROUP_SUFFIX_USAGE, groupSuffixFromFlags, kindsAsServed } from './serve-groups.js';
import { SERVICE_ACCOUNT_OPTIONS, SERVICE_ACCOUNT_USAGE, serviceAccountsFromFlags } from './serve-service-accounts.js';
import { UsageError } from './usage-error.js';

export const SERVE_USAGE = `svckit serve [--host 127.0.0.1] [--port 8080] [--store sqlite:<path>|memory|etcd://host:port[,...][?prefix=/p]]
             [--history-window 5m] [--continue-ttl 5m] [--schemas <dir>] ${SERVE_CRD_USAGE} ${GROUP_SUFFIX_USAGE}
             [--service-cluster-ip-range 10.96.0.0/12] ${SERVE_CONTROLLERS_USAGE}
             ${SERVE_VERSION_USAGE}
             ${ENCRYPTION_SERVE_USAGE} ${REPLICA_USAGE}
             ${SERVE_AUDIT_USAGE}
             ${ADMISSION_USAGE}
${SERVE_ACCESS_USAGE}
             ${SERVICE_ACCOUNT_USAGE}`;

/** `svckit serve`: the reference server until SIGTERM or SIGINT. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseCommandLine({
    args,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8080' },
      store: { type: 'string', default: DEFAULT_STORE },
      'history-window': { type: 'string', default: '5m' },
      'continue-ttl': { type: 'string', default: '5m' },
      'service-cluster-ip-range': { type: 'string' },
      schemas: { type: 'string', multiple: true },
      ...SERVE_VERSION_OPTIONS,
      ...encryptionServeOptions,
      ...replicaOptions,
      ...SERVE_AUDIT_OPTIONS,
      ...ADMISSION_OPTIONS,
      ...SERVE_ACCESS_OPTIONS,
      ...SERVE_CRD_OPTIONS,
      ...GROUP_SUFFIX_OPTIONS,
      ...SERVICE_ACCOUNT_OPTIONS,
      ...SERVE_CONTROLLERS_OPTIONS,
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0 to 65535, not ${values.port}`);
  const historyWindowMs = durationMs('--history-window', values['history-window']);
  const continueTtlMs = durationMs('--continue-ttl', values['continue-ttl']);
  const audit = serveAuditOptions(values, DEFAULT_RELEASE, (line) => process.stderr.write(`${line}\n`));
  const access = serveAccess(values, values.host, values.store);
  const project = values.schemas ? await projectKinds(values.schemas, 'serve') : undefined;
  const groupSuffix = groupSuffixFromFlags(values);
  const controllers = serveControllers(values.controllers);
  const serviceClusterIPRange = values['service-cluster-ip-range'];
  if (serviceClusterIPRange !== undefined) {
    try {
      parseServiceCidr(serviceClusterIPRange);
    } catch (e) {
      throw new UsageError(`--service-cluster-ip-range: ${(e as Error).message}`);
    }
  }
  const versions = serveVersionOptions(values, kindsAsServed(project?.kinds ?? allKinds, groupSuffix));
  for (const w of versions.warnings) process.stderr.write(`svckit serve: warning: ${w}\n`);
  // A project's rules are the user's: refused here, before the server starts. The built-in kinds'
  // are fixed when they are generated (a test compiles them all), so a start does not compile them:
  // each kind's rules compile on its first write.
  const problems = project ? checkRules(project.kinds) : [];
  if (problems.length > 0) throw new Error(`the schemas' CEL rules do not compile:\n${problems.join('\n')}`);
  const { url, close } = await startReferenceServer({
    host: values.host,
    port,
    store: values.store,
    historyWindowMs,
    continueTtlMs,
    ...versions.options,
    admission: admissionFromFlags(values),
    ...(project ? { project } : {}),
    ...(await encryptionFromFlags(values)),
    ...replicaServerOptions(values),
    ...audit.options,
    ...(access.access ? { access: access.access } : {}),
    ...(await crdsFromFlags(values)),
    ...serviceAccountsFromFlags(values),
    groupSuffix,
    ...(serviceClusterIPRange !== undefined ? { serviceClusterIPRange } : {}),
    ...controllers,
  });
  // The client config files are written before the first line: whoever waits for it can read them.
  const connect = access.announce(url);
  process.stdout.write(`listening on ${url}\n`);
  for (const line of connect) process.stdout.write(`${line}\n`);
  audit.listening();
  await new Promise<void>((done) => {
    const stop = () => void close().then(done);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  process.stderr.write('svckit serve: stopped; watches closed and the store flushed\n');
  return 0;
}

function durationMs(flag: string, text: string): number {
  try {
    const ms = parseDuration(text).milliseconds;
    if (ms <= 0) throw new Error('must be positive');
    return ms;
  } catch (e) {
    throw new UsageError(`${flag} ${text}: ${(e as Error).message} (a duration such as 30s, 5m or 1h)`);
  }
}
