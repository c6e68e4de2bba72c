/**
 * The KMS v2 provider as upstream's envelope/kmsv2 writes it in 1.30: at start (and whenever the
 * plugin's Status reports a new key id) the server makes a random 32-byte seed and has the plugin
 * encrypt it; every write then derives a one-time AES-256-GCM key from the seed and 32 random
 * bytes (HKDF-SHA256, expand only), authenticated with the storage key. The stored envelope is an
 * `EncryptedObject` (the encrypted seed, key id, annotations, the data) after
 * `k8s:enc:kms:v2:<name>:`. Reads ask the plugin to decrypt a seed once and cache it; a value
 * written under another key id than the current one is stale (rewritten by the next update).
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { gcmOpen, gcmSeal } from './aes.js';
import { DekSourceType, type EncryptedObject, KmsClient, encryptedObject } from './kms-wire.js';
import type { KeyTransformer } from './transformer.js';

const SEED = 32;
const INFO = 32;
/** How often writes re-check the plugin's key id, as upstream polls Status every minute. */
const STATUS_INTERVAL_MS = 60_000;

export interface KmsV2Options {
  /** The provider's name (unique in the configuration). */
  name: string;
  /** `unix:///path/to/socket`. */
  endpoint: string;
  timeoutMs: number;
  statusIntervalMs?: number;
}

interface WriteState {
  seed: Buffer;
  keyId: string;
  encryptedDEKSource: Buffer;
  annotations: Record<string, Buffer>;
}

export interface KmsV2Transformer extends KeyTransformer {
  close(): void;
}

/** Connects to the plugin and makes the first seed: a plugin that is down or unhealthy fails the start. */
export async function kmsV2(options: KmsV2Options): Promise<KmsV2Transformer> {
  const client = new KmsClient(options.endpoint, options.timeoutMs);
  const interval = options.statusIntervalMs ?? STATUS_INTERVAL_MS;
  const seeds = new Map<string, Buffer>();
  let state: WriteState;
  let checkedAt = 0;
  let refreshing: Promise<void> | undefined;

  async function currentKeyId(): Promise<string> {
    const status = await client.status();
    if (status.version !== 'v2') throw new Error(`KMS plugin ${options.name} speaks API version "${status.version}", expected "v2"`);
    if (status.healthz !== 'ok') throw new Error(`KMS plugin ${options.name} is not healthy: ${status.healthz}`);
    if (status.keyId === '') throw new Error(`KMS plugin ${options.name} reports an empty key id`);
    checkedAt = Date.now();
    return status.keyId;
  }

  async function newSeed(): Promise<WriteState> {
    const seed = randomBytes(SEED);
    const res = await client.encrypt({ plaintext: seed, uid: randomUUID() });
    if (res.ciphertext.length === 0 || res.keyId === '')
      throw new Error(`KMS plugin ${options.name} answered Encrypt without ciphertext or key id`);
    const next = { seed, keyId: res.keyId, encryptedDEKSource: res.ciphertext, annotations: res.annotations };
    seeds.set(cacheKey(DekSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED, next), seed);
    return next;
  }

  async function refresh(): Promise<void> {
    if (Date.now() - checkedAt < interval) return;
    refreshing ??= (async () => {
      try {
        if ((await currentKeyId()) !== state.keyId) state = await newSeed();
      } finally {
        refreshing = undefined;
      }
    })();
    await refreshing;
  }

  try {
    await currentKeyId();
    state = await newSeed();
  } catch (e) {
    client.close();
    throw e;
  }

  return {
    prefix: `k8s:enc:kms:v2:${options.name}:`,
    name: `kms/${options.name}`,
    close: () => client.close(),
    seal: async (plaintext, key) => {
      await refresh();
      const { seed, keyId, encryptedDEKSource, annotations } = state;
      const info = randomBytes(INFO);
      const sealed = gcmSeal('aes-256-gcm', expand(seed, info), plaintext, key);
      return encryptedObject.serialize({
        encryptedData: Buffer.concat([info, sealed]),
        keyID: keyId,
        encryptedDEKSource,
        annotations,
        encryptedDEKSourceType: DekSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED,
      });
    },
    open: async (payload, key) => {
      const o = decodeEnvelope(payload);
      const cached = cacheKey(o.encryptedDEKSourceType, { ...o, keyId: o.keyID });
      let source = seeds.get(cached);
      if (!source) {
        const res = await client.decrypt({
          ciphertext: o.encryptedDEKSource,
          uid: randomUUID(),
          keyId: o.keyID,
          annotations: o.annotations,
        });
        source = res.plaintext;
        seeds.set(cached, source);
      }
      const plaintext =
        o.encryptedDEKSourceType === DekSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED
          ? gcmOpen('aes-256-gcm', expand(source, o.encryptedData.subarray(0, INFO)), o.encryptedData.subarray(INFO), key)
          : gcmOpen(`aes-${source.length * 8}-gcm`, source, o.encryptedData, key);
      return { plaintext, stale: o.keyID !== state.keyId || o.encryptedDEKSourceType !== DekSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED };
    },
  };
}

/** HKDF-SHA256 expand-only to one 32-byte block: HMAC(seed, info || 0x01). */
function expand(seed: Buffer, info: Buffer): Buffer {
  return createHmac('sha256', seed).update(info).update(Buffer.of(1)).digest();
}

/** The seed cache is keyed by everything the plugin is given to decrypt it. */
function cacheKey(type: number, s: Pick<WriteState, 'encryptedDEKSource' | 'keyId' | 'annotations'>): string {
  const h = createHash('sha256').update(String(type)).update('\0').update(s.keyId).update('\0').update(s.encryptedDEKSource);
  for (const name of Object.keys(s.annotations).sort()) h.update('\0').update(name).update('\0').update(s.annotations[name]!);
  return h.digest('base64');
}

function decodeEnvelope(payload: Buffer): EncryptedObject {
  let o: EncryptedObject;
  try {
    o = encryptedObject.deserialize(payload);
  } catch (e) {
    throw new Error(`the stored envelope is not an EncryptedObject: ${(e as Error).message}`);
  }
  if (
    o.encryptedDEKSourceType !== DekSourceType.AES_GCM_KEY &&
    o.encryptedDEKSourceType !== DekSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED
  ) {
    throw new Error(`unknown encryptedDEKSourceType: ${o.encryptedDEKSourceType}`);
  }
  if (o.encryptedData.length === 0) throw new Error('encrypted data is empty');
  if (o.encryptedDEKSource.length === 0) throw new Error('encrypted DEK source is empty');
  if (o.keyID === '') throw new Error('the envelope has an empty key id');
  return o;
}
