export {
  loadSchemas,
  loadDocuments,
  loadFile,
  BUILTIN_SCHEMAS,
  type LoadOptions,
  type DocumentPolicy,
  type SchemaDocument,
} from './load-schemas.js';
export { LoadError, isLoadError } from './load-error.js';
