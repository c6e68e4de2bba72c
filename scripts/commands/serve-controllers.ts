import { UsageError } from './usage-error.js';

/** The kube-controller-manager controllers the reference server runs in-process, by upstream's names. */
const CONTROLLERS = ['serviceaccount', 'root-ca-cert-publisher'] as const;
type Controller = (typeof CONTROLLERS)[number];

export const SERVE_CONTROLLERS_USAGE = `[--controllers '*,-root-ca-cert-publisher']`;
export const SERVE_CONTROLLERS_OPTIONS = { controllers: { type: 'string' } } as const;

/**
 * `--controllers` as kube-controller-manager reads it: a list of controllers to run, `*` for every
 * one on by default, `-name` to leave one out (default `*`).
 */
export function serveControllers(flag: string | undefined): { namespaceControllers: boolean; rootCaPublisher: boolean } {
  const on = new Set<Controller>();
  const items = (flag ?? '*').split(',').map((s) => s.trim());
  if (items.includes('*')) for (const c of CONTROLLERS) on.add(c);
  for (const item of items) {
    if (item === '*' || item === '') continue;
    const name = item.replace(/^-/, '');
    if (!(CONTROLLERS as readonly string[]).includes(name))
      throw new UsageError(`--controllers: unknown controller ${JSON.stringify(name)} (${CONTROLLERS.join(', ')})`);
    if (item.startsWith('-')) on.delete(name as Controller);
    else on.add(name as Controller);
  }
  if (!on.has('serviceaccount') && on.has('root-ca-cert-publisher'))
    throw new UsageError('--controllers: root-ca-cert-publisher runs with serviceaccount here; leave both out or keep serviceaccount');
  return { namespaceControllers: on.has('serviceaccount'), rootCaPublisher: on.has('root-ca-cert-publisher') };
}
