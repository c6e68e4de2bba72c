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
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String((error as Error).message).includes(SERVE_BUNDLE)) throw error;
    return import('./serve.js');
  }
}
