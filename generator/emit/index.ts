export { createEmitContext, GENERATOR_NAME, type EmitContext } from './emit-context.js';
export { emitTypes } from './types.js';
export { emitIndexes } from './indexes.js';
export { openApiDocument, schemaName, type OpenApiDocument } from './openapi-document.js';
export { emitSchemas, schemaConstName } from './schema.js';
export { emitValidators, validatorName } from './validate.js';
export { DefaultsIndex, defaulterName, emitDefaulters } from './defaults.js';
export { emitAllKinds, emitKinds, kindsConstName } from './kinds.js';
export { emitOpenApi, openApiPath } from './openapi.js';
