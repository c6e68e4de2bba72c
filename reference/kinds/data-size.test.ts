/** ConfigMaps and Secrets hold at most 1 MiB of data, as upstream's ValidateConfigMap and ValidateSecret. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, expectStatus, startServer } from '../../runtime/server/server.testing.js';

let h: Harness;
beforeAll(async () => {
  h = await startServer();
});
afterAll(() => h.close());

const MiB = 1024 * 1024;

describe('the 1 MiB data limit', () => {
  it('a ConfigMap: data (UTF-8 bytes) and binaryData (decoded) count together; the whole object is named', async () => {
    const path = `/api/v1/namespaces/${h.ns}/configmaps`;
    // 'é' is two bytes: half a MiB of them is a full MiB, and one byte of binaryData is over.
    const data = { a: 'é'.repeat(MiB / 4), b: 'é'.repeat(MiB / 4) };
    const over = await h.post(path, { metadata: { name: 'big' }, data, binaryData: { c: Buffer.from('x').toString('base64') } });
    expect(expectStatus(over, 422, 'Invalid').message).toBe('ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes');
    expect((await h.get(`${path}/big`)).status).toBe(404);
    expect((await h.post(path, { metadata: { name: 'big' }, data })).status).toBe(201);
    // An update that grows it past the limit is refused the same way.
    const grown = await h.patch(`${path}/big`, { binaryData: { c: Buffer.from('x').toString('base64') } });
    expect(expectStatus(grown, 422, 'Invalid').details.causes).toEqual([
      { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1048576 bytes', field: '[]' },
    ]);
  });

  it('a Secret: data decoded, stringData merged first; the field is data', async () => {
    const path = `/api/v1/namespaces/${h.ns}/secrets`;
    const full = Buffer.alloc(MiB, 1).toString('base64');
    expect((await h.post(path, { metadata: { name: 'full' }, data: { a: full } })).status).toBe(201);
    const over = await h.post(path, { metadata: { name: 'over' }, data: { a: full }, stringData: { b: 'x' } });
    expect(expectStatus(over, 422, 'Invalid').message).toBe('Secret "over" is invalid: data: Too long: may not be more than 1048576 bytes');
  });
});
