export { type GroupVersionKind, apiVersionOf, isKind } from './gvk.js';
