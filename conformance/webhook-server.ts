/**
 * The kit's own admission webhook, for scenarios that judge how a server calls webhooks. The kit
 * imports nothing of svckit's runtime (it must judge any server), so this is a small HTTPS server
 * of its own, with a throw-away self-signed certificate made by `openssl`. It decides from the
 * object (or old object) it is sent, so scenarios running in parallel need no shared state:
 *
 * - annotation `conformance.<suffix>/webhook-deny: <message>`: denied (403) with the message;
 * - annotation `conformance.<suffix>/webhook-warn: <text>`: allowed with the warning;
 * - annotation `conformance.<suffix>/webhook-mutate: <value>`: allowed with a JSON patch adding the
 *   label `conformance-mutated: <value>` (mutating webhooks only are registered for it);
 * - a dry-run request to a webhook whose object has `conformance.<suffix>/webhook-deny-dry-run`:
 *   denied with "dry run seen", so a scenario sees that `request.dryRun` was sent.
 *
 * Every answer echoes the request's uid and AdmissionReview apiVersion.
 *
 * A ConversionReview (a custom resource definition converting through the kit) is answered by
 * moving `spec.size` (versions named `v1`) to `spec.sizing.value` (other versions) and back; an
 * object annotated `conformance.<suffix>/conversion-fail: <message>` fails the review with the message.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { type AddressInfo, isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KitWebhook {
  /** The URL the server under test calls (the one given with --webhook-url, or a local one). */
  url: string;
  /** base64 of the PEM certificate: the `caBundle` of a webhook configuration. */
  caBundle: string;
  close(): Promise<void>;
}

/** The parts of an AdmissionReview the kit's webhook reads. */
interface ReviewObject {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
}
interface Review {
  apiVersion?: string;
  kind?: string;
  request?: {
    uid?: string;
    dryRun?: boolean;
    object?: ReviewObject | null;
    oldObject?: ReviewObject | null;
    desiredAPIVersion?: string;
    objects?: (ReviewObject & { apiVersion?: string; spec?: Record<string, unknown> })[];
  };
}

export class WebhookSetupError extends Error {
  override readonly name = 'WebhookSetupError';
}

/** Starts the webhook listening on `url`'s port (all interfaces), with a certificate for its host. */
export async function startKitWebhook(url: string): Promise<KitWebhook> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new WebhookSetupError(`--webhook-url: "${url}" is not a URL`);
  }
  if (target.protocol !== 'https:') throw new WebhookSetupError(`--webhook-url: must be https://host:port, not ${url}`);
  if (target.port === '') throw new WebhookSetupError(`--webhook-url: name the port the kit listens on (https://host:port), not ${url}`);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const tls = selfSigned(host);
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let review: Review;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(review.kind === 'ConversionReview' ? converted(review) : answer(review)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new WebhookSetupError(`--webhook-url: cannot listen on port ${target.port}: ${e.message}`)));
    server.listen(Number(target.port), isIP(host) === 6 ? '::' : '0.0.0.0', () => resolve());
  });
  // Port 0 (the in-process reference server's default): the port the system chose.
  if (target.port === '0') target.port = String((server.address() as AddressInfo).port);
  return {
    url: `${target.origin}${target.pathname === '/' ? '' : target.pathname}`,
    caBundle: Buffer.from(tls.cert).toString('base64'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function annotation(object: ReviewObject | null | undefined, name: string): string | undefined {
  const annotations = object?.metadata?.annotations ?? {};
  for (const [key, value] of Object.entries(annotations)) if (key.startsWith('conformance.') && key.endsWith(`/${name}`)) return value;
  return undefined;
}

function answer(review: Review): Record<string, unknown> {
  const request = review.request ?? {};
  const object = request.object ?? request.oldObject;
  const response: Record<string, unknown> = { uid: request.uid, allowed: true };
  const deny = annotation(object, 'webhook-deny');
  const warn = annotation(object, 'webhook-warn');
  const mutate = annotation(object, 'webhook-mutate');
  if (request.dryRun === true && annotation(object, 'webhook-deny-dry-run') !== undefined) {
    Object.assign(response, { allowed: false, status: { code: 403, message: 'dry run seen' } });
  } else if (deny !== undefined) {
    Object.assign(response, { allowed: false, status: { code: 403, message: deny } });
  } else if (mutate !== undefined && request.object) {
    const labels = request.object.metadata?.labels;
    const patch = labels
      ? [{ op: 'add', path: '/metadata/labels/conformance-mutated', value: mutate }]
      : [{ op: 'add', path: '/metadata/labels', value: { 'conformance-mutated': mutate } }];
    Object.assign(response, { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
  }
  if (warn !== undefined) response.warnings = [warn];
  return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response };
}

function converted(review: Review): Record<string, unknown> {
  const { uid, desiredAPIVersion = '', objects = [] } = review.request ?? {};
  const response = (result: Record<string, unknown>, convertedObjects: unknown[] = []) => ({
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: { uid, convertedObjects, result },
  });
  const failing = objects.map((o) => annotation(o, 'conversion-fail')).find((m) => m !== undefined);
  if (failing !== undefined) return response({ status: 'Failure', message: failing });
  const toV1 = desiredAPIVersion.endsWith('/v1');
  return response(
    { status: 'Success' },
    objects.map((o) => {
      const spec = { ...o.spec };
      if (toV1 && typeof spec.sizing === 'object' && spec.sizing !== null) {
        spec.size = (spec.sizing as { value?: unknown }).value;
        delete spec.sizing;
      } else if (!toV1 && 'size' in spec) {
        spec.sizing = { value: spec.size };
        delete spec.size;
      }
      return { ...o, apiVersion: desiredAPIVersion, spec };
    }),
  );
}

function selfSigned(host: string): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-conformance-webhook-'));
  const san = [host, 'localhost', '127.0.0.1']
    .filter((h, i, all) => all.indexOf(h) === i)
    .map((h) => (isIP(h) ? `IP:${h}` : `DNS:${h}`))
    .join(',');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        'key.pem',
        '-out',
        'cert.pem',
        '-days',
        '2',
        '-subj',
        '/CN=svckit conformance webhook',
        '-addext',
        `subjectAltName=${san}`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } catch (e) {
    throw new WebhookSetupError(`the kit's webhook needs openssl for its certificate: ${(e as Error).message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
