import { authorizer } from '#functions/authorizer';
import { createPet } from '#functions/create-pet';
import { getPet } from '#functions/get-pet';
import { listPets } from '#functions/list-pets';
import { type LocalGateway, startLocalGateway } from '#infra/local/gateway';
import { generateApiKey } from '#shared/auth/api-key';
import { apiKeyRepository } from '#shared/composition/api-keys';
import { readOnlyPetService, writablePetService } from '#shared/composition/pets';
import { ApiClient } from './api-client';
import { createTestTables, type TestTables } from './tables';

export interface LocalApi {
  readonly client: ApiClient;
  readonly gateway: LocalGateway;
  readonly tables: TestTables;
  readonly apiKey: string;
  close(): Promise<void>;
}

/**
 * The local server in front of the real handlers and the real authorizer, on tables of its own
 * in the run's DynamoDB Local, with one valid key.
 */
export const startLocalApi = async (label: string): Promise<LocalApi> => {
  const tables = await createTestTables(label);
  const apiKeys = apiKeyRepository(tables.env);
  const { key, record } = generateApiKey(`${label} tests`);
  await apiKeys.put(record);
  const gateway = await startLocalGateway({
    port: 0,
    handlers: {
      listPets: listPets({ pets: readOnlyPetService(tables.env) }),
      createPet: createPet({ pets: writablePetService(tables.env) }),
      getPet: getPet({ pets: readOnlyPetService(tables.env) }),
    },
    authorizer: authorizer({ apiKeys }),
  });
  return {
    client: new ApiClient(gateway.baseUrl, key),
    gateway,
    tables,
    apiKey: key,
    close: () => gateway.close(),
  };
};
