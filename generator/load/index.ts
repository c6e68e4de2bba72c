export { loadSchemas, loadFile, BUILTIN_SCHEMAS, type LoadOptions, type DocumentPolicy } from './load-schemas.js';
export { LoadError, isLoadError } from './load-error.js';
