import type { GroupVersion } from '../model/index.js';
import { LoadError } from './load-error.js';
import type { LinkContext } from './link.js';
import { isRecord } from './svc-schema.js';

/** True for an OpenAPI v3 (`openapi: 3.x`) or v2 (`swagger: "2.0"`) document. */
export function isOpenApi(doc: unknown): boolean {
  return isRecord(doc) && (typeof doc.openapi === 'string' || doc.swagger === '2.0');
}

// Replaced by the full loader (in progress in this session).
export function loadOpenApi(_doc: unknown, file: string, _link: LinkContext): GroupVersion[] {
  throw new LoadError(file, '', 'OpenAPI documents are not loaded yet');
}
