import { parseArgs } from 'node:util';
import { parseDuration } from '../../runtime/api/index.js';
import { responseCompressionEnabled } from '../../runtime/compression/index.js';
import { ApiServer } from '../../runtime/server/index.js';
import { createStore } from '../../runtime/store/index.js';
import { celRuleChecker, checkRules } from '../../runtime/server/cel-rules.js';
import { type ProjectKinds, projectKinds } from './project-kinds.js';
import { UsageError } from './usage-error.js';

export const SERVE_USAGE = `svckit serve [--host 127.0.0.1] [--port 8080] [--store sqlite:<path>|memory]
             [--history-window 5m] [--continue-ttl 5m] [--schemas <dir>] [--runtime-config batch/v1beta1=true]
             [--feature-gates APIResponseCompression=false]`;

/** `svckit serve`: the reference server until SIGTERM or SIGINT. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8080' },
      store: { type: 'string', default: 'sqlite:.svckit/data.db' },
      'history-window': { type: 'string', default: '5m' },
      'continue-ttl': { type: 'string', default: '5m' },
      schemas: { type: 'string', multiple: true },
      'runtime-config': { type: 'string', default: '' },
      'feature-gates': { type: 'string', default: '' },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0 to 65535, not ${values.port}`);
  const historyWindowMs = durationMs('--history-window', values['history-window']);
  const continueTtlMs = durationMs('--continue-ttl', values['continue-ttl']);
  const { kinds, openApiDocuments } = values.schemas ? await projectKinds(values.schemas, 'serve') : await builtinKinds();
  const store = await createStore(values.store, { historyWindowMs, compactionIntervalMs: Math.max(1000, Math.min(60_000, historyWindowMs / 4)) });
  const problems = checkRules(kinds);
  if (problems.length > 0) throw new Error(`the schemas' CEL rules do not compile:\n${problems.join('\n')}`);
  const { allProtobufPackages } = await import('../../generated/protobuf.js');
  const server = new ApiServer({
    kinds,
    store,
    continueTtlMs,
    rules: celRuleChecker(),
    openApiDocuments,
    runtimeConfig: values['runtime-config'],
    // Protobuf is for the built-in kinds only; a project's own kinds are custom resources.
    ...(values.schemas ? {} : { protobufPackages: allProtobufPackages }),
    compression: responseCompressionEnabled(values['feature-gates']),
  });
  const url = await server.listen(port, values.host);
  process.stdout.write(`listening on ${url}\n`);
  await new Promise<void>((done) => {
    const stop = () => void server.close().then(done);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  process.stderr.write('svckit serve: stopped; watches closed and the store flushed\n');
  return 0;
}

async function builtinKinds(): Promise<ProjectKinds> {
  const [{ allKinds }, { openApiDocuments }] = await Promise.all([import('../../generated/kinds.js'), import('../../generated/openapi.js')]);
  return { kinds: allKinds, openApiDocuments };
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
