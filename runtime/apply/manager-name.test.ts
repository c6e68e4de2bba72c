import { describe, expect, it } from 'vitest';
import { FIELD_MANAGER_MAX_LENGTH, managerForWrite, managerFromUserAgent } from './manager-name.js';

describe('manager inference', () => {
  it('manager/user-agent-product: the User-Agent up to the first "/" names the manager', () => {
    expect(managerFromUserAgent('kubectl/v1.30.0 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(managerFromUserAgent('kube-controller-manager/v1.30.0')).toBe('kube-controller-manager');
    expect(managerFromUserAgent('curl')).toBe('curl');
  });

  it('manager/unprintable-dropped: unprintable characters are left out', () => {
    expect(managerFromUserAgent('my\u0000tool\u0007/1.0')).toBe('mytool');
  });

  it('manager/length-capped: the name is cut to 128 bytes without splitting a character', () => {
    expect(managerFromUserAgent('x'.repeat(200))).toHaveLength(FIELD_MANAGER_MAX_LENGTH);
    const name = managerFromUserAgent('é'.repeat(100));
    expect(Buffer.byteLength(name)).toBe(128);
  });

  it('manager/explicit-wins: fieldManager wins over the User-Agent', () => {
    expect(managerForWrite('ci', 'kubectl/v1')).toBe('ci');
    expect(managerForWrite(undefined, 'kubectl/v1')).toBe('kubectl');
    expect(managerForWrite('', 'helm/3')).toBe('helm');
  });

  it('manager/unknown: neither fieldManager nor User-Agent gives "unknown"', () => {
    expect(managerForWrite(undefined, undefined)).toBe('unknown');
    expect(managerForWrite(undefined, '/leading-slash')).toBe('unknown');
  });
});
