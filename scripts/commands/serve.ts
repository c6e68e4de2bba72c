import { parseArgs } from 'node:util';
import { parseDuration } from '../../runtime/api/index.js';
import { responseCompressionEnabled } from '../../runtime/compression/index.js';
import { allKinds } from '../../generated/kinds.js';
import { checkRules } from '../../runtime/server/index.js';
import { DEFAULT_STORE, startReferenceServer } from '../reference-server.js';
import { projectKinds } from './project-kinds.js';
import { SERVE_ACCESS_OPTIONS, SERVE_ACCESS_USAGE, serveAccess } from './serve-access.js';
import { UsageError } from './usage-error.js';

export const SERVE_USAGE = `svckit serve [--host 127.0.0.1] [--port 8080] [--store sqlite:<path>|memory|etcd://host:port[,...][?prefix=/p]]
             [--history-window 5m] [--continue-ttl 5m] [--schemas <dir>] [--runtime-config batch/v1beta1=true]
             [--feature-gates APIResponseCompression=false]
${SERVE_ACCESS_USAGE}`;

/** `svckit serve`: the reference server until SIGTERM or SIGINT. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8080' },
      store: { type: 'string', default: DEFAULT_STORE },
      'history-window': { type: 'string', default: '5m' },
      'continue-ttl': { type: 'string', default: '5m' },
      schemas: { type: 'string', multiple: true },
      'runtime-config': { type: 'string', default: '' },
      'feature-gates': { type: 'string', default: '' },
      ...SERVE_ACCESS_OPTIONS,
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0 to 65535, not ${values.port}`);
  const historyWindowMs = durationMs('--history-window', values['history-window']);
  const continueTtlMs = durationMs('--continue-ttl', values['continue-ttl']);
  const access = serveAccess(values, values.host, values.store);
  const project = values.schemas ? await projectKinds(values.schemas, 'serve') : undefined;
  const problems = checkRules(project?.kinds ?? allKinds);
  if (problems.length > 0) throw new Error(`the schemas' CEL rules do not compile:\n${problems.join('\n')}`);
  const { url, close } = await startReferenceServer({
    host: values.host,
    port,
    store: values.store,
    historyWindowMs,
    continueTtlMs,
    runtimeConfig: values['runtime-config'],
    compression: responseCompressionEnabled(values['feature-gates']),
    ...(project ? { project } : {}),
    ...(access.access ? { access: access.access } : {}),
  });
  process.stdout.write(`listening on ${url}\n`);
  const announced = access.announce(url);
  if (announced) process.stdout.write(`${announced}\n`);
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
