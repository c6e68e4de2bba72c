export type {
  FieldSchema,
  ListSchema,
  MapSchema,
  NodeCommon,
  ObjectSchema,
  RefSchema,
  Rule,
  ScalarSchema,
  SchemaNode,
  SpecialSchema,
} from './types.js';
export { deref } from './types.js';
export { omitEmpty } from './omit-empty.js';
export { applyTypeDefaults, type NamedTypeDefaulter } from './type-defaults.js';
export { prune } from './prune.js';
export { type Defaulter, closureDefaulter, defaulterOf } from './defaulter.js';
export { type Validator, closureValidator, validatorOf } from './validator.js';
export type {
  ConversionRule,
  KindRegistration,
  NameValidation,
  PrinterColumn,
  ResourceDescriptor,
  SubresourceDeclaration,
  VersionLifecycle,
} from './kind.js';
export { IDENTIFIER, sourceFunction } from './source-function.js';
