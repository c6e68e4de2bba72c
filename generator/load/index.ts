export { loadSchemas, loadFile, BUILTIN_SCHEMAS, type LoadOptions } from './load-schemas.js';
export { LoadError, isLoadError } from './load-error.js';
