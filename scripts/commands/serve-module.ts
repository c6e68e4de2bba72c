/**
 * Where the serve command's code is loaded from. `npm run build` bundles it into one file beside
 * serve.js (scripts/build.ts): loading some 500 compiled modules one by one was a fifth of a
 * server's start. From the sources (tsx), or a dist/ built without it, serve.js itself.
 */
export const SERVE_BUNDLE = 'serve.bundled.js';

export async function loadServeCommand(): Promise<typeof import('./serve.js')> {
  try {
    return (await import(`./${SERVE_BUNDLE}`)) as typeof import('./serve.js');
  } catch (error) {
    // Only the bundle itself missing: a chunk it imports missing is a broken build, said as such.
    const { code, url, message } = error as { code?: string; url?: string; message?: string };
    const bundleMissing = url?.endsWith(`/${SERVE_BUNDLE}`) ?? String(message).includes(`/${SERVE_BUNDLE}' imported from`);
    if (code !== 'ERR_MODULE_NOT_FOUND' || !bundleMissing) throw error;
    return import('./serve.js');
  }
}
