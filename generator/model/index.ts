export type * from './types.js';
export { allSources, apiVersionOf, typeKey, ModelIndex, groupDir, ownGroupVersions, sortModel } from './model-index.js';
