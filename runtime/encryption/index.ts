/**
 * Encryption at rest (`--encryption-provider-config`): an EncryptionConfiguration's providers
 * (aesgcm, aescbc, secretbox, identity, kms v2) in front of any store backend, the rewrite that
 * finishes a key rotation, and a small KMS v2 plugin.
 */
export { EncryptionAtRest, EncryptionConfigError, isEncryptionConfigError } from './config.js';
export { EncryptingStore, type StoredResource, type StoredResources, encryptStore, isStaleValue } from './encrypting-store.js';
export { type RunningKmsPlugin, type KmsPluginOptions, kmsKeyId, startKmsPlugin } from './kms-plugin.js';
export { type RewriteProgress, type RewriteResult, rewriteStored } from './rewrite.js';
export { type ReadValue, TransformError, isTransformError } from './transformer.js';
