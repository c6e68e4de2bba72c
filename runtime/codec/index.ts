export { findDuplicateKeys, readJsonWithDuplicates } from './json-duplicates.js';
export { UnsafeIntegerError, checkSafeIntegers, isUnsafeIntegerError, readJson } from './json-reader.js';
export {
  type EnvelopeProblem,
  ProtobufCodecError,
  ProtobufEnvelopeError,
  isProtobufCodecError,
  isProtobufEnvelopeError,
} from './protobuf-errors.js';
export { type Envelope, PROTOBUF_MAGIC, decodeEnvelope, encodeEnvelope } from './envelope.js';
export { type WatchEventFrame, WatchFrameReader, decodeWatchEvent } from './watch-frames.js';
export { type EmbeddedMessage, type ProtobufKind, type ProtobufPackage, type WatchEventObject, ProtobufCodecs } from './protobuf-codecs.js';
export {
  type MediaType,
  MEDIA_JSON,
  MEDIA_JSON_WATCH,
  MEDIA_PROTOBUF,
  MEDIA_PROTOBUF_WATCH,
  MEDIA_PROTOBUF_K8S,
  MEDIA_PROTOBUF_K8S_WATCH,
  MEDIA_TABLE_JSON,
  MEDIA_YAML,
  essence,
  formatMediaType,
  isTableMediaType,
  parseMediaType,
} from './media-types.js';
export { negotiate } from './negotiate.js';
export {
  AGE_COLUMN_DEFINITION,
  type IncludeObject,
  NAME_COLUMN_DEFINITION,
  type Table,
  type TableColumnDefinition,
  type TableOptions,
  type TablePrinter,
  type TableRow,
  columnsPrinter,
  toTable,
} from './table.js';
export { JsonPath, JsonPathError, isJsonPathError } from './json-path.js';
export { humanDuration } from './human-duration.js';
export {
  YamlBodyError,
  addDuplicateKeyError,
  decodeYaml,
  decodeYamlWithDuplicates,
  encodeYaml,
  isDuplicateKeyError,
  isYamlBodyError,
} from './yaml.js';
export { type Timestamp, formatTimestamp, parseTimestamp } from './timestamp.js';
