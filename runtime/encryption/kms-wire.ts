/**
 * The KMS v2 plugin API (`v2.KeyManagementService`: Status, Encrypt, Decrypt) and the envelope
 * the server stores (`EncryptedObject`), as protobufjs definitions written for this project from
 * the field numbers of upstream's `k8s.io/kms/apis/v2/api.proto` and `kmsv2/v2/api.proto`, plus a
 * thin @grpc/grpc-js client and the service definition a plugin serves. No .proto file ships.
 */
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

type Fields = Record<string, { type: string; id: number; keyType?: string }>;
const f = (id: number, type: string): Fields[string] => ({ id, type });
const map = (id: number, type: string): Fields[string] => ({ id, type, keyType: 'string' });

const root = protobuf.Root.fromJSON({
  nested: {
    v2: {
      nested: {
        StatusRequest: { fields: {} },
        StatusResponse: { fields: { version: f(1, 'string'), healthz: f(2, 'string'), keyId: f(3, 'string') } },
        DecryptRequest: {
          fields: { ciphertext: f(1, 'bytes'), uid: f(2, 'string'), keyId: f(3, 'string'), annotations: map(4, 'bytes') },
        },
        DecryptResponse: { fields: { plaintext: f(1, 'bytes') } },
        EncryptRequest: { fields: { plaintext: f(1, 'bytes'), uid: f(2, 'string') } },
        EncryptResponse: { fields: { ciphertext: f(1, 'bytes'), keyId: f(2, 'string'), annotations: map(3, 'bytes') } },
        EncryptedObject: {
          fields: {
            encryptedData: f(1, 'bytes'),
            keyID: f(2, 'string'),
            encryptedDEKSource: f(3, 'bytes'),
            annotations: map(4, 'bytes'),
            encryptedDEKSourceType: f(5, 'int32'),
          },
        },
      },
    },
  },
});

const TO_OBJECT: protobuf.IConversionOptions = { bytes: Buffer as never, defaults: true, objects: true };

function codec<T>(name: string) {
  const type = root.lookupType(`v2.${name}`);
  return {
    serialize: (value: T): Buffer => Buffer.from(type.encode(type.fromObject(value as object)).finish()),
    deserialize: (bytes: Buffer): T => type.toObject(type.decode(bytes), TO_OBJECT) as T,
  };
}

export interface StatusResponse {
  version: string;
  healthz: string;
  keyId: string;
}
export interface EncryptRequest {
  plaintext: Buffer;
  uid: string;
}
export interface EncryptResponse {
  ciphertext: Buffer;
  keyId: string;
  annotations: Record<string, Buffer>;
}
export interface DecryptRequest {
  ciphertext: Buffer;
  uid: string;
  keyId: string;
  annotations: Record<string, Buffer>;
}
export interface DecryptResponse {
  plaintext: Buffer;
}

/** The two kinds of DEK source upstream writes; 1.30 writes the HKDF seed. */
export const DekSourceType = { AES_GCM_KEY: 0, HKDF_SHA256_XNONCE_AES_GCM_SEED: 1 } as const;

/** What the server stores after `k8s:enc:kms:v2:<name>:`. */
export interface EncryptedObject {
  encryptedData: Buffer;
  keyID: string;
  encryptedDEKSource: Buffer;
  annotations: Record<string, Buffer>;
  encryptedDEKSourceType: number;
}
export const encryptedObject = codec<EncryptedObject>('EncryptedObject');

const method = <Req, Res>(name: string, req: string, res: string) => {
  const a = codec<Req>(req);
  const b = codec<Res>(res);
  return {
    path: `/v2.KeyManagementService/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: a.serialize,
    requestDeserialize: a.deserialize,
    responseSerialize: b.serialize,
    responseDeserialize: b.deserialize,
  };
};

/** The service a KMS v2 plugin serves. */
export const keyManagementService = {
  Status: method<Record<string, never>, StatusResponse>('Status', 'StatusRequest', 'StatusResponse'),
  Decrypt: method<DecryptRequest, DecryptResponse>('Decrypt', 'DecryptRequest', 'DecryptResponse'),
  Encrypt: method<EncryptRequest, EncryptResponse>('Encrypt', 'EncryptRequest', 'EncryptResponse'),
} satisfies grpc.ServiceDefinition;

/** A client of one plugin over its unix socket; every call has the provider's timeout as its deadline. */
export class KmsClient {
  readonly #client: grpc.Client;

  constructor(
    readonly endpoint: string,
    private readonly timeoutMs: number,
  ) {
    this.#client = new grpc.Client(endpoint, grpc.credentials.createInsecure());
  }

  status(): Promise<StatusResponse> {
    return this.#call('Status', {});
  }

  encrypt(request: EncryptRequest): Promise<EncryptResponse> {
    return this.#call('Encrypt', request);
  }

  decrypt(request: DecryptRequest): Promise<DecryptResponse> {
    return this.#call('Decrypt', request);
  }

  close(): void {
    this.#client.close();
  }

  #call<N extends keyof typeof keyManagementService>(name: N, request: unknown): Promise<never> {
    const m = keyManagementService[name];
    return new Promise((resolve, reject) => {
      this.#client.makeUnaryRequest(
        m.path,
        m.requestSerialize as (v: unknown) => Buffer,
        m.responseDeserialize as (b: Buffer) => unknown,
        request,
        new grpc.Metadata(),
        { deadline: Date.now() + this.timeoutMs },
        (err, value) => {
          if (err) reject(new Error(`KMS plugin ${this.endpoint} ${name}: ${err.details || err.message}`));
          else resolve(value as never);
        },
      );
    });
  }
}
