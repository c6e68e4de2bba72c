import { parseCommandLine } from './parse-command-line.js';
import { Transport } from '../../runtime/client/index.js';
import { loadClientConfig } from '../../runtime/client-node/index.js';
import { EXPLAIN_PATH } from '../../runtime/server/index.js';
import { UsageError } from './usage-error.js';

export const AUTH_USAGE =
  'svckit auth explain [--kubeconfig <file>] [--context <name>] [--as <user> [--as-group <group>]...] -- <METHOD> <path>';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * `svckit auth explain -- DELETE /api/v1/namespaces/ns/pods/web`: asks the server (its
 * `/debug/svckit/explain` endpoint) what it would decide for that request from this client, or
 * for `--as` another user, and prints which authenticator identified the user and which binding
 * allowed it or why every authorizer said no. Exit 0 when allowed, 1 when not.
 */
export async function authCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args,
    options: {
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      as: { type: 'string' },
      'as-group': { type: 'string', multiple: true },
    },
    allowPositionals: true,
    strict: true,
  });
  const [sub, rawMethod, path, ...extra] = positionals;
  if (sub !== 'explain') throw new UsageError(`auth: unknown subcommand ${JSON.stringify(sub ?? '')}; usage: ${AUTH_USAGE}`);
  const method = rawMethod?.toUpperCase();
  if (!method || !METHODS.has(method) || !path?.startsWith('/') || extra.length > 0)
    throw new UsageError(`auth explain needs a method and an absolute path, as: ${AUTH_USAGE}`);
  if (values['as-group'] && !values.as) throw new UsageError('--as-group needs --as');
  const config = await loadClientConfig({
    ...(values.kubeconfig ? { paths: [values.kubeconfig] } : {}),
    ...(values.context ? { context: values.context } : {}),
  });
  const query = new URLSearchParams({ method, path });
  if (values.as) query.set('user', values.as);
  for (const g of values['as-group'] ?? []) query.append('group', g);
  const explanation = await new Transport({ ...config, retry: { maxRetries: 0 } }).request<{ allowed: boolean; text: string }>({
    method: 'GET',
    path: EXPLAIN_PATH,
    query,
  });
  process.stdout.write(`${explanation.text}\n`);
  return explanation.allowed ? 0 : 1;
}
