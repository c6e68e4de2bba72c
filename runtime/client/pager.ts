import { isStatusError, type StatusError } from '../api/index.js';
import { isExpired } from './errors.js';
import type { ListOptions } from './options.js';
import type { ObjectList } from './types.js';

export interface ListAllOptions extends ListOptions {
  /**
   * Called when a continue token expired (410) and the listing starts again from the first page:
   * pages already received belong to an older snapshot, so a consumer that collects them resets.
   */
  onRestart?: (error: StatusError) => void;
}

/** Page size when the caller gives none: client-go's pager default. */
export const DEFAULT_PAGE_SIZE = 500;
/** Restarts after expired tokens before falling back to one unpaged list. */
const MAX_RESTARTS = 3;

/**
 * Every page of a list, following continue tokens (the spec's chunked list procedure). On 410 it
 * does what the client duties say: an expired continue token restarts from the first page (and,
 * after a few restarts, drops `limit` for one full list); a NotOlderThan version too old for a
 * paged list falls back to the most recent state (empty resourceVersion).
 */
export async function* listPages<L extends ObjectList<unknown>>(
  fetchPage: (options: ListOptions) => Promise<L>,
  options: ListAllOptions,
): AsyncGenerator<L, void, undefined> {
  const { onRestart, ...rest } = options;
  let first: ListOptions = { ...rest, limit: rest.limit ?? DEFAULT_PAGE_SIZE };
  let current = first;
  let restarts = 0;
  for (;;) {
    let page: L;
    try {
      page = await fetchPage(current);
    } catch (e) {
      if (!isExpired(e) || !isStatusError(e)) throw e;
      if (current.continue !== undefined && current.continue !== first.continue) {
        restarts++;
        first = restarts > MAX_RESTARTS ? { ...first, limit: undefined, continue: undefined } : { ...first, continue: undefined };
        current = first;
        onRestart?.(e);
        continue;
      }
      if (current.resourceVersion && current.resourceVersion !== '0' && current.resourceVersionMatch !== 'Exact') {
        first = { ...first, resourceVersion: undefined, resourceVersionMatch: undefined };
        current = first;
        continue;
      }
      throw e;
    }
    yield page;
    const token = page.metadata?.continue;
    if (!token) return;
    // Later pages are read at the first page's snapshot, which the token remembers.
    current = { ...current, continue: token, resourceVersion: undefined, resourceVersionMatch: undefined };
  }
}
