import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * The body rules at their edges: 16 KiB counted in bytes, not characters, and a body sent with
 * no Content-Type at all (which `fetch` never does: it labels a string as text/plain).
 */

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi('body-limits');
});
afterAll(() => api.close());

/** A valid NewPet padded with spaces to exactly `bytes` UTF-8 bytes; its name is multi-byte. */
const bodyOf = (bytes: number): string => {
  const json = JSON.stringify({ name: 'é'.repeat(100), categoryId: 1 });
  return json + ' '.repeat(bytes - Buffer.byteLength(json));
};

describe('a body of 16 KiB', () => {
  it('is accepted at exactly 16,384 bytes, multi-byte characters counted as bytes', async () => {
    const body = bodyOf(16_384);
    expect(Buffer.byteLength(body)).toBe(16_384);

    const response = await api.client.post('/pets', body, {
      headers: { 'Content-Type': 'application/json' },
    });

    expect(response.status).toBe(201);
  });

  it('is refused with 413 PAYLOAD_TOO_LARGE at 16,385 bytes, though it has fewer characters than that', async () => {
    const body = bodyOf(16_385);
    expect(body.length).toBeLessThan(16_384);

    const response = await api.client.post('/pets', body, {
      headers: { 'Content-Type': 'application/json' },
    });

    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Request body is 16385 bytes; at most 16384 are accepted',
    });
  });
});

describe('a body nested 2,000 objects deep', () => {
  it('is refused with 400 VALIDATION_FAILED by create and change, never a 500', async () => {
    const body = `${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}`;

    const created = await api.client.post('/pets', body, { headers: { 'Content-Type': 'application/json' } });
    const changed = await api.client.request('/pets/1', {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json', 'If-Match': '"1"' },
      body,
    });

    for (const response of [created, changed]) {
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'body' }] });
    }
  });
});

describe('a body with no Content-Type header at all', () => {
  it('is refused with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const body = JSON.stringify({ name: 'Rex', categoryId: 1 });
    const url = new URL(`${api.gateway.baseUrl}/pets`);

    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const sent = request(
        url,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${api.apiKey}`, 'Content-Length': Buffer.byteLength(body) },
        },
        (response) => {
          let data = '';
          response.on('data', (chunk: Buffer) => {
            data += chunk.toString();
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text: data }));
        },
      );
      sent.on('error', reject);
      expect(sent.getHeader('content-type')).toBeUndefined();
      sent.end(body);
    });

    expect(status).toBe(415);
    expect(JSON.parse(text)).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
  });
});
