import type { ServerResponse } from 'node:http';

const listeners = new WeakMap<ServerResponse, (() => void)[]>();

/**
 * Calls `f` once the response's headers are written: when a long-running response (a watch)
 * starts, which is when upstream emits ResponseStarted and counts it as running. One decorator of
 * `writeHead` per response, however many stages listen.
 */
export function onHeadersWritten(res: ServerResponse, f: () => void): void {
  let list = listeners.get(res);
  if (!list) {
    const fns: (() => void)[] = (list = []);
    listeners.set(res, fns);
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
      res.writeHead = writeHead;
      const out = writeHead.apply(this, args as never);
      for (const g of fns) g();
      return out;
    } as ServerResponse['writeHead'];
  }
  list.push(f);
}
