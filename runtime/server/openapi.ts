import { createHash } from 'node:crypto';
import { swaggerDocument } from './openapi-v2.js';

type Loader = () => Promise<Record<string, unknown>>;

/** Whether the server serves the group/version of a document's path (`api/v1`, `apis/<group>/<version>`). */
export type ServedPath = (path: string) => boolean;

/**
 * `/openapi/v3`: the index of documents with content-hashed URLs, and each document at
 * `/openapi/v3/<api/v1 | apis/<group>/<version>>`, as the real system publishes them.
 */
export class OpenApiPublisher {
  private readonly cache = new Map<string, { doc: Record<string, unknown>; hash: string }>();

  private readonly loaders: Record<string, Loader>;

  /**
   * `served` hides the documents of group/versions discovery does not list (not in the release,
   * turned off by `--runtime-config`): the generated documents cover every version of the spec.
   */
  /** The Swagger 2.0 document and the served documents' hashes it was written from. */
  private swagger: { from: string; doc: Record<string, unknown> } | undefined;

  constructor(
    loaders: Record<string, Loader>,
    private readonly served: ServedPath = () => true,
    /** The server's version, as `info.version` of `/openapi/v2` (`v1.30.0`). */
    private readonly version = 'unversioned',
  ) {
    this.loaders = { ...loaders };
  }

  /** Publishes documents defined at run time (a CustomResourceDefinition's), replacing those under the same paths. */
  publish(documents: Record<string, Loader>): void {
    for (const [key, loader] of Object.entries(documents)) {
      this.loaders[key] = loader;
      this.cache.delete(key);
    }
  }

  /** Withdraws documents (the definition that published them was deleted). */
  withdraw(keys: readonly string[]): void {
    for (const key of keys) {
      delete this.loaders[key];
      this.cache.delete(key);
    }
  }

  /** The body for `/openapi/<path>` (path below /openapi), or undefined for an unknown path. */
  async get(path: string): Promise<Record<string, unknown> | undefined> {
    if (path === 'v3') return this.index();
    if (path === 'v2') return this.swaggerDocument();
    if (!path.startsWith('v3/')) return undefined;
    return (await this.load(path.slice(3)))?.doc;
  }

  private async index(): Promise<Record<string, unknown>> {
    const paths: Record<string, unknown> = {};
    for (const key of Object.keys(this.loaders).sort().filter(this.served)) {
      const entry = await this.load(key);
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${entry!.hash}` };
    }
    return { paths };
  }

  /** `/openapi/v2`, written again only when the served documents changed (a definition created or deleted). */
  private async swaggerDocument(): Promise<Record<string, unknown>> {
    const keys = Object.keys(this.loaders).sort().filter(this.served);
    const entries = await Promise.all(keys.map((key) => this.load(key)));
    const from = entries.map((e) => e!.hash).join(',');
    if (this.swagger?.from !== from)
      this.swagger = {
        from,
        doc: swaggerDocument(
          entries.map((e) => e!.doc),
          this.version,
        ),
      };
    return this.swagger.doc;
  }

  private async load(key: string): Promise<{ doc: Record<string, unknown>; hash: string } | undefined> {
    const cached = this.cache.get(key);
    if (cached) return cached;
    const loader = this.loaders[key];
    if (!loader || !this.served(key)) return undefined;
    const doc = await loader();
    const entry = { doc, hash: createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 128).toUpperCase() };
    this.cache.set(key, entry);
    return entry;
  }
}
