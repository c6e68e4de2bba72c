export { Collector, FieldPath, type PathLike, charLength, checkMapKeysUnique, checkSetUnique, isObject, noDefaults } from './collector.js';
export { base64Error, isBase64, isDate, isDateTime, isDuration, isQuantity, isZeroDuration } from './formats.js';
export { lazyRegex } from '../regex/index.js';
export { type Branch, type ValueConstraints, type ValueValidation, checkValueValidation } from './value-validation.js';
export { openAPIErrors } from './openapi-messages.js';
