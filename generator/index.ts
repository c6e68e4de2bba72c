export { codegen, type CodegenOptions, type CodegenResult, type FileStatus } from './codegen.js';
export { loadSchemas, loadDocuments, type SchemaDocument, LoadError, isLoadError, BUILTIN_SCHEMAS } from './load/index.js';
export {
  RUNTIME_PACKAGE,
  SVCKIT_ROOT,
  type RuntimeImports,
  type DescribeOptions,
  type DescribedKind,
  type DescribedModel,
  describeModel,
} from './emit/index.js';
export { svckitVersion } from './version.js';
export type * from './model/index.js';
