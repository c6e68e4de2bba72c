import { allKinds } from '../generated/kinds.js';
import { openApiDocuments } from '../generated/openapi.js';
import { allProtobufPackages } from '../generated/protobuf.js';
import { celRuleChecker } from '../runtime/server/cel-rules.js';
import { ApiServer, type RuleChecker } from '../runtime/server/index.js';
import { createStore } from '../runtime/store/index.js';

export interface ReferenceServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** `memory` or `sqlite:<path>`; default `sqlite:.svckit/data.db`. */
  store?: string;
  historyWindowMs?: number;
  continueTtlMs?: number;
  bookmarkIntervalMs?: number;
  rules?: RuleChecker;
  /** `--runtime-config`: enables removed versions (e.g. `batch/v1beta1=true`) or disables served ones. */
  runtimeConfig?: string;
  /** Response compression (false: `APIResponseCompression=false`). */
  compression?: boolean;
}

export interface RunningServer {
  url: string;
  server: ApiServer;
  close(): Promise<void>;
}

/** The reference server: every built-in kind over the chosen store. Wiring only; behaviour is in runtime/. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<RunningServer> {
  const store = await createStore(options.store ?? 'sqlite:.svckit/data.db', {
    ...(options.historyWindowMs !== undefined ? { historyWindowMs: options.historyWindowMs, compactionIntervalMs: Math.max(50, Math.floor(options.historyWindowMs / 4)) } : {}),
  });
  const server = new ApiServer({
    kinds: allKinds,
    store,
    ...(options.continueTtlMs !== undefined ? { continueTtlMs: options.continueTtlMs } : {}),
    ...(options.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: options.bookmarkIntervalMs } : {}),
    rules: options.rules ?? celRuleChecker(),
    openApiDocuments,
    protobufPackages: allProtobufPackages,
    ...(options.compression !== undefined ? { compression: options.compression } : {}),
    ...(options.runtimeConfig ? { runtimeConfig: options.runtimeConfig } : {}),
  });
  const url = await server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  return { url, server, close: () => server.close() };
}
