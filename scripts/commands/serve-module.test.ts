import { describe, expect, it } from 'vitest';
import { loadServeCommand, SERVE_BUNDLE } from './serve-module.js';

describe('loadServeCommand', () => {
  it(`loads serve.js when no ${SERVE_BUNDLE} is beside it (the sources, a build without the bundle)`, async () => {
    const serve = await loadServeCommand();
    expect(serve.serveCommand).toBeTypeOf('function');
    expect(serve.SERVE_USAGE).toMatch(/^svckit serve /);
  });
});
