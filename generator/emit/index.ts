export { createEmitContext, GENERATOR_NAME, type EmitContext } from './emit-context.js';
export { emitTypes } from './types.js';
export { emitIndexes } from './indexes.js';
export { openApiDocument, schemaName, type OpenApiDocument } from './openapi-document.js';
export { emitSchemas, schemaConstName } from './schema.js';
