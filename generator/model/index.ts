export type * from './types.js';
export { apiVersionOf, typeKey, ModelIndex, groupDir, sortModel } from './model-index.js';
