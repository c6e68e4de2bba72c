export type * from './types.js';
export { apiVersionOf, typeKey, ModelIndex, groupDir, ownGroupVersions, sortModel } from './model-index.js';
