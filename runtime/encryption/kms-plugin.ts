/**
 * A small KMS v2 plugin: a real gRPC server on a unix socket that encrypts the server's seeds
 * with AES-256-GCM under key-encryption keys it holds. For tests and for trying KMS encryption
 * out; a production plugin keeps its keys in a hardware or cloud KMS instead. The first key
 * encrypts; every key decrypts what carries its id (a key id is derived from the key), so a
 * plugin restarted with a new key first and the old one after it reads both.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import type * as Grpc from '@grpc/grpc-js';
import { gcmOpen, gcmSeal } from './aes.js';
import type { DecryptRequest, EncryptRequest } from './kms-wire.js';

export interface KmsPluginOptions {
  /** Path of the unix socket to listen on (a stale socket file there is replaced). */
  socket: string;
  /** 32-byte key-encryption keys; the first encrypts. */
  keys: readonly Buffer[];
}

export interface RunningKmsPlugin {
  /** `unix://<socket>`, as an EncryptionConfiguration's kms `endpoint` names it. */
  endpoint: string;
  /** The id of the key that encrypts (what Status reports). */
  keyId: string;
  close(): Promise<void>;
}

/** The id a key is known by: not secret, derived so a restart with the same key keeps it. */
export function kmsKeyId(key: Buffer): string {
  return `svckit-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

export async function startKmsPlugin(options: KmsPluginOptions): Promise<RunningKmsPlugin> {
  if (options.keys.length === 0) throw new Error('the KMS plugin needs at least one key');
  for (const k of options.keys) if (k.length !== 32) throw new Error(`a KMS plugin key must be 32 bytes, not ${k.length}`);
  const byId = new Map(options.keys.map((k) => [kmsKeyId(k), k]));
  const keyId = kmsKeyId(options.keys[0]!);
  // Loaded here, so that a server without KMS never loads gRPC.
  const grpc = await import('@grpc/grpc-js');
  const { keyManagementService } = await import('./kms-wire.js');
  const server = new grpc.Server();
  const fail = (code: Grpc.status, details: string) => Object.assign(new Error(details), { code, details });
  server.addService(keyManagementService, {
    Status: (_call: unknown, done: Grpc.sendUnaryData<unknown>) => done(null, { version: 'v2', healthz: 'ok', keyId }),
    Encrypt: (call: Grpc.ServerUnaryCall<EncryptRequest, unknown>, done: Grpc.sendUnaryData<unknown>) => {
      // The key id is authenticated too, so an envelope cannot be replayed under another id.
      done(null, { ciphertext: gcmSeal('aes-256-gcm', options.keys[0]!, call.request.plaintext, keyId), keyId, annotations: {} });
    },
    Decrypt: (call: Grpc.ServerUnaryCall<DecryptRequest, unknown>, done: Grpc.sendUnaryData<unknown>) => {
      const key = byId.get(call.request.keyId);
      if (!key) return done(fail(grpc.status.NOT_FOUND, `unknown key id ${JSON.stringify(call.request.keyId)}`), null);
      try {
        done(null, { plaintext: gcmOpen('aes-256-gcm', key, call.request.ciphertext, call.request.keyId) });
      } catch (e) {
        done(fail(grpc.status.INVALID_ARGUMENT, (e as Error).message), null);
      }
    },
  });
  rmSync(options.socket, { force: true });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${options.socket}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  return {
    endpoint: `unix://${options.socket}`,
    keyId,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        setTimeout(() => server.forceShutdown(), 1000).unref();
      }),
  };
}
