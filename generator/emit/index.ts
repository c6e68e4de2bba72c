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
export { collectDeclarations, emitTypes } from './types.js';
export { emitIndexes } from './indexes.js';
export { openApiDocument, schemaName, type OpenApiDocument } from './openapi-document.js';
export { emitSchemas, schemaConstName } from './schema.js';
export { emitValidators, validatorName } from './validate.js';
export { DefaultsIndex, defaulterName, emitDefaulters } from './defaults.js';
export { emitAllKinds, emitKinds, kindsConstName } from './kinds.js';
export { emitOpenApi, openApiPath } from './openapi.js';
export { WIRE_FILE, WIRE_PACKAGE, emitProto, hasProtobuf, protoFilePath, protoPackage, protobufKinds } from './proto.js';
export { emitProtobufPackages, protobufConstName } from './protobuf.js';
export { clientFactoryName, clientInterfaceName, emitClients, emitRootClient } from './client.js';
