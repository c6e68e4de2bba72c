export { type SampleKind, type SampleOptions, canonicalJson, documentArbitrary, expectedAfterProtobuf } from './schema-arbitrary.js';
