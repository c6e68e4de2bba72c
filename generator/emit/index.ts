export {
  createEmitContext,
  GENERATOR_NAME,
  RUNTIME_PACKAGE,
  SVCKIT_ROOT,
  gvAliasPrefix,
  type EmitContext,
  type RuntimeArea,
  type RuntimeImports,
} from './emit-context.js';
export { emitTypes } from './types.js';
export { collectDeclarations, type Declaration } from './declarations.js';
export { ModuleNames, gvNamespace } from './names.js';
export { emitIndexes } from './indexes.js';
export { openApiDocument, schemaName, type OpenApiDocument } from './openapi-document.js';
export { emitSchemas } from './schema.js';
export { emitAllKinds, emitKinds } from './kinds.js';
export { emitOpenApi, openApiPath } from './openapi.js';
export { WIRE_FILE, WIRE_PACKAGE, emitProto, hasProtobuf, protoFilePath, protoPackage, protobufKinds } from './proto.js';
export { emitProtobufPackages, protobufConstName } from './protobuf.js';
export { emitClients, emitRootClient } from './client.js';
export { type DescribeOptions, type DescribedKind, type DescribedModel, describeModel } from './describe.js';
