export { Collector, FieldPath, type PathLike, charLength, checkMapKeysUnique, checkSetUnique } from './collector.js';
// The generated validators and defaulters name it from this face.
export { isObject } from '../json/index.js';
export { base64Error, isBase64, isDate, isDateTime, isZeroDuration } from './formats.js';
export { isDuration, isQuantity } from '../api/index.js';
export { lazyRegex } from '../regex/index.js';
export { type Branch, type ValueConstraints, type ValueValidation, checkValueValidation } from './value-validation.js';
export { openAPIErrors } from './openapi-messages.js';
