import { describe, expect, it } from 'vitest';
import { camelCase, pascalCase, tsKey, tsString, tsValue } from './index.js';

const evaluate = (literal: string): unknown => new Function(`return (${literal});`)();

describe('TypeScript literals', () => {
  it('round-trips strings with quotes, backslashes and newlines', () => {
    for (const s of ["it's", 'say "hi"', `both ' and "`, 'back\\slash', 'two\nlines', "^[-._a-zA-Z0-9]+$'"]) {
      expect(evaluate(tsString(s))).toBe(s);
    }
    expect(tsString("it's")).toBe(`"it's"`);
    expect(tsString('plain')).toBe(`'plain'`);
  });

  it('round-trips JSON values', () => {
    const value = { a: [1, 'x', null, true], 'b-c': { d: "e'f" }, __proto__x: 2 };
    expect(evaluate(tsValue(value))).toEqual(value);
    expect(tsValue({ 'tls-server-name': 'x' })).toBe("{ 'tls-server-name': 'x' }");
  });

  it('quotes only keys that are not identifiers', () => {
    expect(tsKey('name')).toBe('name');
    expect(tsKey('certificate-authority-data')).toBe("'certificate-authority-data'");
  });

  it('makes PascalCase identifiers from field names', () => {
    expect(pascalCase('tls-server-name')).toBe('TlsServerName');
    expect(pascalCase('http01')).toBe('Http01');
  });
});

describe('camelCase', () => {
  it('lowers a leading initialism as people write it', () => {
    expect(['HTTPRoute', 'GRPCRoute', 'TCPRoute', 'CSIDriver', 'IPAddress', 'ConfigMap', 'Pod', 'HTTP', 'URLs'].map(camelCase)).toEqual([
      'httpRoute',
      'grpcRoute',
      'tcpRoute',
      'csiDriver',
      'ipAddress',
      'configMap',
      'pod',
      'http',
      'urls',
    ]);
  });

  it('joins the words of group names and versions', () => {
    expect(camelCase('flowcontrol.apiserver.svc.io v1beta3')).toBe('flowcontrolApiserverSvcIoV1beta3');
    expect(camelCase('cert-manager')).toBe('certManager');
  });
});
