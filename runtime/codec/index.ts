export { findDuplicateKeys } from './json-duplicates.js';
