/**
 * One field error, one renderer: the same invalid document gives the same line (upstream's
 * `field.Error.Error()`, k8s.io/apimachinery/pkg/util/validation/field/errors.go) in the server's
 * error Status, in `svckit validate`'s report, and in the client's StatusError.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import { allKinds } from '../../generated/kinds.js';
import { isStatusError } from '../api/index.js';
import { DocumentValidator } from '../documents/index.js';
import { type Harness, type Json, startServer } from './server.testing.js';

const pod = (spec: Json): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web' },
  spec: { containers: [{ name: 'web', image: 'nginx' }], ...spec },
});
const service = (spec: Json): Json => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web' },
  spec: { ports: [{ port: 80 }], ...spec },
});

/** [case, document, collection, the line upstream prints, the HTTP status]. */
const CASES: [string, Json, string, string, number][] = [
  [
    'too long',
    pod({ containers: [{ name: 'x'.repeat(64), image: 'nginx' }] }),
    'pods',
    'spec.containers[0].name: Too long: may not be more than 63 bytes',
    422,
  ],
  [
    'too many',
    service({ ipFamilies: ['IPv4', 'IPv6', 'IPv4'] }),
    'services',
    'spec.ipFamilies: Too many: 3: must have at most 2 items',
    422,
  ],
  ['required', pod({ containers: [{ image: 'nginx' }] }), 'pods', 'spec.containers[0].name: Required value', 400],
  [
    'invalid',
    pod({ containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 65536 }] }] }),
    'pods',
    'spec.containers[0].ports[0].containerPort: Invalid value: 65536: must be less than or equal to 65535',
    422,
  ],
  [
    'duplicate',
    pod({
      containers: [
        { name: 'web', image: 'a' },
        { name: 'web', image: 'b' },
      ],
    }),
    'pods',
    'spec.containers[1]: Duplicate value: {"name":"web"}',
    422,
  ],
  [
    'not supported',
    pod({ restartPolicy: 'Sometimes' }),
    'pods',
    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    422,
  ],
];

describe('field errors render the same in the server, svckit validate and the client', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startServer({ namespace: 'render' });
  });
  afterAll(async () => {
    await h.close();
  });

  it.each(CASES)('%s', async (_name, doc, collection, line, status) => {
    // svckit validate: the finding's message is the line.
    const [result] = new DocumentValidator(allKinds).validateText('doc.json', JSON.stringify(doc));
    expect(result!.findings.filter((f) => f.severity === 'error').map((f) => f.message)).toEqual([line]);

    // The server: the Status message ends with the line, and the cause carries its body.
    const res = await h.post(`/api/v1/namespaces/render/${collection}`, doc);
    expect(res.status).toBe(status);
    expect(res.body.message.endsWith(`: ${line}`), res.body.message).toBe(true);
    if (status === 422) {
      const field = line.slice(0, line.indexOf(': '));
      expect(res.body.details.causes).toEqual([{ reason: expect.stringMatching(/^Field/), field, message: line.slice(field.length + 2) }]);
    }

    // The client: its StatusError says exactly what the server said.
    const client = createClient({ server: h.url, namespace: 'render' });
    const resources = collection === 'pods' ? client.core.v1.pods('render') : client.core.v1.services('render');
    const error = await resources.create(structuredClone(doc)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isStatusError(error)).toBe(true);
    expect((error as Error).message).toBe(res.body.message);
  });
});
