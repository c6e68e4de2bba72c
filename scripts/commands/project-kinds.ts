import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { codegen } from '../../generator/index.js';
import type { KindRegistration } from '../../runtime/schema/index.js';

export interface ProjectKinds {
  kinds: readonly KindRegistration[];
  openApiDocuments: Record<string, () => Promise<Record<string, unknown>>>;
}

/** A project's schemas or CRDs, generated into .svckit/generated and loaded: the same runtime serves or checks them. */
export async function projectKinds(schemas: string[], command: string): Promise<ProjectKinds> {
  const out = resolve('.svckit', 'generated');
  mkdirSync(out, { recursive: true });
  // Generated code is ESM; this directory may sit in a project that is not.
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  codegen({ schemas, out, log: (line) => process.stderr.write(`svckit ${command}: ${line}\n`) });
  const kinds = (await import(pathToFileURL(join(out, 'kinds.ts')).href)) as { allKinds: readonly KindRegistration[] };
  const openapi = (await import(pathToFileURL(join(out, 'openapi.ts')).href)) as Pick<ProjectKinds, 'openApiDocuments'>;
  return { kinds: kinds.allKinds, openApiDocuments: openapi.openApiDocuments };
}
