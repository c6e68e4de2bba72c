/**
 * The part of etcd's v3 gRPC API the etcd backend uses (KV: Range, Put, DeleteRange, Txn,
 * Compact; Watch), as protobufjs definitions written for this project from the field numbers of
 * etcd's `etcdserverpb/rpc.proto` and `mvccpb/kv.proto`, plus a thin @grpc/grpc-js client. No
 * .proto file ships and no code is generated: the message shapes below are the whole schema.
 */
import { readFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

type Fields = Record<string, { type: string; id: number; rule?: 'repeated' }>;
const f = (id: number, type: string, repeated = false): Fields[string] => (repeated ? { id, type, rule: 'repeated' } : { id, type });

const messages: Record<string, { fields: Fields; oneofs?: Record<string, { oneof: string[] }> }> = {
  ResponseHeader: {
    fields: { clusterId: f(1, 'uint64'), memberId: f(2, 'uint64'), revision: f(3, 'int64'), raftTerm: f(4, 'uint64') },
  },
  KeyValue: {
    fields: {
      key: f(1, 'bytes'),
      createRevision: f(2, 'int64'),
      modRevision: f(3, 'int64'),
      version: f(4, 'int64'),
      value: f(5, 'bytes'),
      lease: f(6, 'int64'),
    },
  },
  Event: { fields: { type: f(1, 'int32'), kv: f(2, 'KeyValue'), prevKv: f(3, 'KeyValue') } },
  RangeRequest: {
    fields: {
      key: f(1, 'bytes'),
      rangeEnd: f(2, 'bytes'),
      limit: f(3, 'int64'),
      revision: f(4, 'int64'),
      sortOrder: f(5, 'int32'),
      sortTarget: f(6, 'int32'),
      serializable: f(7, 'bool'),
      keysOnly: f(8, 'bool'),
      countOnly: f(9, 'bool'),
    },
  },
  RangeResponse: {
    fields: { header: f(1, 'ResponseHeader'), kvs: f(2, 'KeyValue', true), more: f(3, 'bool'), count: f(4, 'int64') },
  },
  PutRequest: { fields: { key: f(1, 'bytes'), value: f(2, 'bytes'), lease: f(3, 'int64'), prevKv: f(4, 'bool') } },
  PutResponse: { fields: { header: f(1, 'ResponseHeader'), prevKv: f(2, 'KeyValue') } },
  DeleteRangeRequest: { fields: { key: f(1, 'bytes'), rangeEnd: f(2, 'bytes'), prevKv: f(3, 'bool') } },
  DeleteRangeResponse: {
    fields: { header: f(1, 'ResponseHeader'), deleted: f(2, 'int64'), prevKvs: f(3, 'KeyValue', true) },
  },
  RequestOp: {
    fields: {
      requestRange: f(1, 'RangeRequest'),
      requestPut: f(2, 'PutRequest'),
      requestDeleteRange: f(3, 'DeleteRangeRequest'),
    },
    oneofs: { request: { oneof: ['requestRange', 'requestPut', 'requestDeleteRange'] } },
  },
  ResponseOp: {
    fields: {
      responseRange: f(1, 'RangeResponse'),
      responsePut: f(2, 'PutResponse'),
      responseDeleteRange: f(3, 'DeleteRangeResponse'),
    },
    oneofs: { response: { oneof: ['responseRange', 'responsePut', 'responseDeleteRange'] } },
  },
  Compare: {
    fields: {
      result: f(1, 'int32'),
      target: f(2, 'int32'),
      key: f(3, 'bytes'),
      version: f(4, 'int64'),
      createRevision: f(5, 'int64'),
      modRevision: f(6, 'int64'),
      value: f(7, 'bytes'),
    },
    oneofs: { targetUnion: { oneof: ['version', 'createRevision', 'modRevision', 'value'] } },
  },
  TxnRequest: {
    fields: { compare: f(1, 'Compare', true), success: f(2, 'RequestOp', true), failure: f(3, 'RequestOp', true) },
  },
  TxnResponse: {
    fields: { header: f(1, 'ResponseHeader'), succeeded: f(2, 'bool'), responses: f(3, 'ResponseOp', true) },
  },
  CompactionRequest: { fields: { revision: f(1, 'int64'), physical: f(2, 'bool') } },
  CompactionResponse: { fields: { header: f(1, 'ResponseHeader') } },
  WatchCreateRequest: {
    fields: {
      key: f(1, 'bytes'),
      rangeEnd: f(2, 'bytes'),
      startRevision: f(3, 'int64'),
      progressNotify: f(4, 'bool'),
      prevKv: f(6, 'bool'),
      watchId: f(7, 'int64'),
    },
  },
  WatchCancelRequest: { fields: { watchId: f(1, 'int64') } },
  WatchRequest: {
    fields: { createRequest: f(1, 'WatchCreateRequest'), cancelRequest: f(2, 'WatchCancelRequest') },
    oneofs: { requestUnion: { oneof: ['createRequest', 'cancelRequest'] } },
  },
  WatchResponse: {
    fields: {
      header: f(1, 'ResponseHeader'),
      watchId: f(2, 'int64'),
      created: f(3, 'bool'),
      canceled: f(4, 'bool'),
      compactRevision: f(5, 'int64'),
      cancelReason: f(6, 'string'),
      events: f(11, 'Event', true),
    },
  },
};

const root = protobuf.Root.fromJSON({ nested: { etcdserverpb: { nested: messages } } });
const type = (name: string): protobuf.Type => root.lookupType(`etcdserverpb.${name}`);

// Plain objects as the backend sees them: int64 as numbers (revisions stay far below 2^53), bytes as Buffers.
export interface EtcdKeyValue {
  key: Buffer;
  value: Buffer;
  createRevision: number;
  modRevision: number;
  version: number;
}
export interface EtcdHeader {
  revision: number;
}
export interface RangeRequest {
  key: Buffer;
  rangeEnd?: Buffer;
  limit?: number;
  revision?: number;
  countOnly?: boolean;
  keysOnly?: boolean;
}
export interface RangeResponse {
  header: EtcdHeader;
  kvs: EtcdKeyValue[];
  more: boolean;
  count: number;
}
export interface PutRequest {
  key: Buffer;
  value: Buffer;
  prevKv?: boolean;
}
export interface PutResponse {
  header: EtcdHeader;
  prevKv?: EtcdKeyValue;
}
export interface DeleteRangeRequest {
  key: Buffer;
  rangeEnd?: Buffer;
  prevKv?: boolean;
}
export interface DeleteRangeResponse {
  header: EtcdHeader;
  deleted: number;
  prevKvs: EtcdKeyValue[];
}
export interface RequestOp {
  requestRange?: RangeRequest;
  requestPut?: PutRequest;
  requestDeleteRange?: DeleteRangeRequest;
}
export interface ResponseOp {
  responseRange?: RangeResponse;
  responsePut?: PutResponse;
  responseDeleteRange?: DeleteRangeResponse;
}
export const CompareResult = { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 } as const;
export const CompareTarget = { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3 } as const;
export interface Compare {
  result: number;
  target: number;
  key: Buffer;
  version?: number;
  createRevision?: number;
  modRevision?: number;
}
export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}
export interface TxnResponse {
  header: EtcdHeader;
  succeeded: boolean;
  responses: ResponseOp[];
}
export const EventType = { PUT: 0, DELETE: 1 } as const;
export interface EtcdEvent {
  type: number;
  kv: EtcdKeyValue;
  prevKv?: EtcdKeyValue;
}
export interface WatchCreateRequest {
  key: Buffer;
  rangeEnd?: Buffer;
  startRevision?: number;
  progressNotify?: boolean;
  prevKv?: boolean;
}
export interface WatchRequest {
  createRequest?: WatchCreateRequest;
  cancelRequest?: { watchId: number };
}
export interface WatchResponse {
  header: EtcdHeader;
  watchId: number;
  created: boolean;
  canceled: boolean;
  compactRevision: number;
  cancelReason: string;
  events: EtcdEvent[];
}

const TO_OBJECT: protobuf.IConversionOptions = { longs: Number, bytes: Buffer as never, defaults: true, arrays: true };

function codec<Req, Res>(req: string, res: string) {
  const reqType = type(req);
  const resType = type(res);
  return {
    serialize: (value: Req): Buffer => Buffer.from(reqType.encode(reqType.fromObject(value as object)).finish()),
    deserialize: (bytes: Buffer): Res => resType.toObject(resType.decode(bytes), TO_OBJECT) as Res,
  };
}

const KV = {
  Range: codec<RangeRequest, RangeResponse>('RangeRequest', 'RangeResponse'),
  Put: codec<PutRequest, PutResponse>('PutRequest', 'PutResponse'),
  DeleteRange: codec<DeleteRangeRequest, DeleteRangeResponse>('DeleteRangeRequest', 'DeleteRangeResponse'),
  Txn: codec<TxnRequest, TxnResponse>('TxnRequest', 'TxnResponse'),
  Compact: codec<{ revision: number; physical: boolean }, { header: EtcdHeader }>('CompactionRequest', 'CompactionResponse'),
};
const WATCH = codec<WatchRequest, WatchResponse>('WatchRequest', 'WatchResponse');

export interface EtcdTls {
  /** PEM file of the CA that signed etcd's certificate. */
  ca?: string;
  /** PEM files of a client certificate and its key (mutual TLS). */
  cert?: string;
  key?: string;
}

export interface EtcdConnection {
  /** `host:port` of each cluster member. */
  endpoints: string[];
  tls?: EtcdTls;
  /** Deadline of each unary call; a call that gets no answer by then fails (default 10 s). */
  callTimeoutMs?: number;
}

/** A gRPC error as grpc-js reports it. */
export type GrpcError = grpc.ServiceError;
export const GrpcStatus = grpc.status;

/** The KV and Watch services of one etcd cluster over one HTTP/2 channel. */
export class EtcdClient {
  readonly #client: grpc.Client;
  readonly #callTimeoutMs: number;

  private constructor(client: grpc.Client, callTimeoutMs: number) {
    this.#client = client;
    this.#callTimeoutMs = callTimeoutMs;
  }

  /**
   * Resolves host names to addresses so several members make one channel target (grpc-js
   * balances only over address lists); the first member is tried first and the channel moves on
   * when it fails.
   */
  static async connect(connection: EtcdConnection): Promise<EtcdClient> {
    const addresses: string[] = [];
    let family: 4 | 6 | undefined;
    for (const endpoint of connection.endpoints) {
      const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(endpoint);
      if (!match) throw new Error(`etcd endpoint "${endpoint}" is not host:port`);
      const host = (match[1] ?? match[2]) as string;
      const ip = isIP(host) ? host : (await lookup(host, { family: family ?? 0 })).address;
      const ipFamily = isIP(ip) === 6 ? 6 : 4;
      family ??= ipFamily;
      if (ipFamily !== family) throw new Error('etcd endpoints mix IPv4 and IPv6 addresses');
      addresses.push(ipFamily === 6 ? `[${ip}]:${match[3]}` : `${ip}:${match[3]}`);
    }
    const target = `ipv${family ?? 4}:${addresses.join(',')}`;
    const tls = connection.tls;
    const options: grpc.ChannelOptions = {
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 2_000,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
    };
    let credentials = grpc.credentials.createInsecure();
    if (tls && (tls.ca || tls.cert || tls.key)) {
      const read = (file: string | undefined): Buffer | null => (file ? readFileSync(file) : null);
      credentials = grpc.credentials.createSsl(read(tls.ca), read(tls.key), read(tls.cert));
      // The certificate names the host, not the address the name was resolved to.
      const firstHost = /^(?:\[([^\]]+)\]|([^:]+)):/.exec(connection.endpoints[0] ?? '');
      const name = firstHost?.[1] ?? firstHost?.[2];
      if (name && !isIP(name)) options['grpc.ssl_target_name_override'] = name;
    }
    return new EtcdClient(new grpc.Client(target, credentials, options), connection.callTimeoutMs ?? 10_000);
  }

  range(request: RangeRequest): Promise<RangeResponse> {
    return this.#unary('/etcdserverpb.KV/Range', KV.Range, request);
  }
  put(request: PutRequest): Promise<PutResponse> {
    return this.#unary('/etcdserverpb.KV/Put', KV.Put, request);
  }
  deleteRange(request: DeleteRangeRequest): Promise<DeleteRangeResponse> {
    return this.#unary('/etcdserverpb.KV/DeleteRange', KV.DeleteRange, request);
  }
  txn(request: TxnRequest): Promise<TxnResponse> {
    return this.#unary('/etcdserverpb.KV/Txn', KV.Txn, request);
  }
  compact(revision: number): Promise<{ header: EtcdHeader }> {
    // physical: answer once the compaction is applied, so the next read sees it.
    return this.#unary('/etcdserverpb.KV/Compact', KV.Compact, { revision, physical: true });
  }

  /** One Watch stream (the backend opens one per store watch, so each has its own flow control). */
  watch(): grpc.ClientDuplexStream<WatchRequest, WatchResponse> {
    return this.#client.makeBidiStreamRequest('/etcdserverpb.Watch/Watch', WATCH.serialize, WATCH.deserialize);
  }

  close(): void {
    this.#client.close();
  }

  #unary<Req, Res>(path: string, c: { serialize: (r: Req) => Buffer; deserialize: (b: Buffer) => Res }, request: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.#client.makeUnaryRequest(
        path,
        c.serialize,
        c.deserialize,
        request,
        new grpc.Metadata(),
        { deadline: Date.now() + this.#callTimeoutMs },
        (error, response) => (error ? reject(error) : resolve(response as Res)),
      );
    });
  }
}
