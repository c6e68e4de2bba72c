export { codegen, type CodegenOptions, type CodegenResult, type FileStatus } from './codegen.js';
export { loadSchemas, LoadError, isLoadError, BUILTIN_SCHEMAS } from './load/index.js';
export type * from './model/index.js';
