/**
 * Hostile text that reaches a response header (the security audit's critical finding): a field
 * name, an admission plugin's warning or a CRD version's deprecation warning with characters
 * outside Latin-1 or control characters. Upstream writes `Warning` text as UTF-8 and drops what
 * NewWarningHeader refuses (control characters, invalid UTF-8); nothing a request carries may end
 * the process, and an error while answering is answered 500 by the last guard.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AdmissionPlugin } from './admission.js';
import { Warnings } from './http.js';
import { type Harness, type Json, type RawAnswer, rawRequest, startServer } from './server.testing.js';

const HOSTILE = ['☃', '中文', '\u0001', 'a\nb', 'a\r\nSet-Cookie: x=1', '\u007f', '\u0085', '\ud800', 'é', '"quoted\\"', '\u2028'];

/** A raw request to the harness's server. */
function send(h: Harness, method: string, target: string, body?: string): Promise<RawAnswer> {
  return rawRequest(h.url, method, target, body);
}

/** A header value a Go client accepts: no control characters but tab (Node's parser refused worse already). */
function expectValidWarnings(answer: RawAnswer): void {
  for (const w of answer.warnings) {
    expect(w).toMatch(/^299 - "/);
    expect(w).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/);
  }
}

describe('Warnings', () => {
  it('drops text a header cannot carry (control characters, lone surrogates) and keeps the rest', () => {
    const w = new Warnings();
    for (const text of HOSTILE) w.add(text);
    expect(w.items).toEqual(['☃', '中文', 'é', '"quoted\\"', '\u2028']);
  });

  it('writes header values as the UTF-8 bytes of the quoted text', () => {
    const w = new Warnings();
    w.add('snow ☃ "q"');
    const [value] = w.headerValues();
    expect(value).toBe(Buffer.from('299 - "snow ☃ \\"q\\""', 'utf8').toString('latin1'));
    expect([...value!].every((c) => c.charCodeAt(0) <= 0xff)).toBe(true);
  });
});

describe('hostile text that reaches the Warning header', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('unknown and duplicate field names of any text: a valid answer, warnings as upstream quotes them, the server alive', async () => {
    h = await startServer();
    for (const name of HOSTILE) {
      const review = `{"apiVersion":"authorization.svc.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"pods"},${JSON.stringify(name)}:1,${JSON.stringify(name)}:2}}`;
      const answer = await send(h, 'POST', '/apis/authorization.svc.io/v1/selfsubjectaccessreviews?fieldValidation=Warn', review);
      expect(answer.status, `${JSON.stringify(name)}: ${answer.body}`).toBe(201);
      expectValidWarnings(answer);
      // Go's %q escapes control characters, so the warning survives (escaped) where it can.
      if (name === 'a\nb') expect(answer.warnings).toContain('299 - "unknown field \\"spec.a\\\\nb\\""');
      if (name === '☃') expect(answer.warnings).toContain('299 - "unknown field \\"spec.☃\\""');

      const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"x-"},"data":{"k":"v"},${JSON.stringify(name)}:"v"}`;
      const created = await send(h, 'POST', `/api/v1/namespaces/${h.ns}/configmaps?fieldValidation=Warn`, cm);
      expect(created.status, created.body).toBe(201);
      expectValidWarnings(created);
      const strict = await send(h, 'POST', `/api/v1/namespaces/${h.ns}/configmaps?fieldValidation=Strict`, cm);
      expect(strict.status, strict.body).toBe(400);
      expect(JSON.parse(strict.body)).toMatchObject({ kind: 'Status', code: 400 });
    }
    expect((await send(h, 'GET', '/healthz')).status).toBe(200);
  });

  it("an admission plugin's warnings of any text: valid headers, carried ones intact", async () => {
    const plugin: AdmissionPlugin = {
      name: 'Hostile',
      async validate(request) {
        for (const text of HOSTILE) request.warnings.add(text);
      },
    };
    h = await startServer({ server: { admission: [plugin] } });
    const answer = await send(h, 'POST', `/api/v1/namespaces/${h.ns}/configmaps`, JSON.stringify({ metadata: { name: 'c' } }));
    expect(answer.status, answer.body).toBe(201);
    expectValidWarnings(answer);
    expect(answer.warnings).toEqual(['299 - "☃"', '299 - "中文"', '299 - "é"', '299 - "\\"quoted\\\\\\""', '299 - "\u2028"']);
  });

  it('an error while answering is a 500 from the last guard, and the server keeps serving', async () => {
    const log: string[] = [];
    // A plugin that puts text in the warnings behind add()'s back: sending the answer fails, and so does sending its error.
    const plugin: AdmissionPlugin = {
      name: 'Broken',
      async validate(request) {
        if (request.resource.resource === 'configmaps') request.warnings.items.push('\u0001broken');
      },
    };
    h = await startServer({ server: { admission: [plugin], log: (line) => log.push(line) } });
    const answer = await send(h, 'POST', `/api/v1/namespaces/${h.ns}/configmaps`, JSON.stringify({ metadata: { name: 'c' } }));
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', code: 500, reason: 'InternalError' });
    expect(log.join('\n')).toContain('answering failed');
    expect((await send(h, 'GET', '/healthz')).status).toBe(200);
    expect((await send(h, 'GET', `/api/v1/namespaces/${h.ns}/configmaps`)).status).toBe(200);
    expect((await send(h, 'POST', `/api/v1/namespaces/${h.ns}/secrets`, JSON.stringify({ metadata: { name: 's' } }))).status).toBe(201);
  });
});

describe("a CRD version's deprecationWarning is checked as upstream's validateDeprecationWarning", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const crd = (warning: string): Json => ({
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.hostile.example.com' },
    spec: {
      group: 'hostile.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          deprecated: true,
          deprecationWarning: warning,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });

  it.each([
    ['\u0001 bad', 'must only contain printable UTF-8 characters; non-printable character found at index 0'],
    ['line\nbreak', 'must only contain printable UTF-8 characters; non-printable character found at index 4'],
    ['é\u0085', 'must only contain printable UTF-8 characters; non-printable character found at index 2'],
    ['x'.repeat(257), 'must be <= 256 characters long'],
    ['☃'.repeat(86), 'must be <= 256 characters long'],
  ])('%j is refused: %s', async (warning, message) => {
    h = await startServer();
    const answer = await send(h, 'POST', '/apis/apiextensions.svc.io/v1/customresourcedefinitions', JSON.stringify(crd(warning)));
    expect(answer.status, answer.body).toBe(422);
    expect(JSON.parse(answer.body).message).toContain(message);
  });

  it('a printable non-Latin-1 warning is accepted and sent as UTF-8', async () => {
    h = await startServer();
    const answer = await send(h, 'POST', '/apis/apiextensions.svc.io/v1/customresourcedefinitions', JSON.stringify(crd('☃ 中 use v2')));
    expect(answer.status, answer.body).toBe(201);
  });
});
