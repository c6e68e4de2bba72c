import { describe, expect, it } from 'vitest';
import { openApiDocuments } from '../../generated/openapi.js';
import { loadSchemas } from '../load/index.js';
import { ownGroupVersions } from '../model/index.js';
import { openApiPath } from './openapi.js';
import { openApiDocument } from './openapi-document.js';
import { printSharedJson } from './shared-json.js';

/** Evaluates the printed module text (constants, then the value) back into a value. */
function evaluate(printed: ReturnType<typeof printSharedJson>): unknown {
  const consts = printed.constants.map((c) => `const ${c.name} = ${c.lines.join('\n')};`).join('\n');
  return new Function(`${consts}\nreturn ${printed.lines.join('\n')};`)();
}

describe('printSharedJson', () => {
  const block = {
    description: 'a block long enough to be worth a name: longer than the threshold below which a subtree is printed in place',
    schema: { $ref: '#/components/schemas/x', type: 'object' },
    required: true,
  };
  const value = { a: [block, { ...block }], b: { c: { ...block }, d: 'small', e: { f: 1 } }, g: { f: 1 } };

  it('builds the same JSON, writing a repeated large subtree once and a small one in place', () => {
    const printed = printSharedJson(value, 'part');
    expect(evaluate(printed)).toEqual(value);
    expect(printed.constants.map((c) => c.name)).toEqual(['part1']);
    expect(printed.lines.filter((l) => l.includes('part1'))).toHaveLength(3);
    expect(printed.lines.join('\n')).not.toContain('a block long enough');
  });

  it('names a subtree only when it is still printed more than once (not when it repeats only inside a shared parent)', () => {
    const parent = { one: block, two: 'x'.repeat(200) };
    const printed = printSharedJson({ p: parent, q: { ...parent } } as never, 'part');
    expect(evaluate(printed)).toEqual({ p: parent, q: parent });
    expect(printed.constants).toHaveLength(1);
  });
});

describe('the generated openapi.ts modules', () => {
  it('hold exactly the documents the emitter builds', async () => {
    const model = loadSchemas({ inputs: [new URL('../../schemas', import.meta.url).pathname] });
    const gvs = ownGroupVersions(model).filter((gv) => gv.types.some((t) => t.kind?.resource));
    expect(gvs.length).toBeGreaterThan(5);
    for (const gv of gvs) {
      const loaded = await openApiDocuments[openApiPath(gv)]!();
      expect(JSON.parse(JSON.stringify(loaded)), openApiPath(gv)).toEqual(openApiDocument(model, `svckit ${openApiPath(gv)}`, [gv]));
    }
  });
});
