import { describe, expect, it } from 'vitest';
import { clientTypes, committedClientTypes } from '#tools/openapi/client-types';

describe('docs/client/pet-store-api.d.ts', () => {
  it('is exactly what openapi-typescript makes of docs/openapi.yaml (run `npm run openapi` when this fails)', async () => {
    expect(await clientTypes()).toBe(await committedClientTypes());
  });
});
