/** API Gateway stage name, and so the base path of every URL: `https://…/v1/pets`. */
export const STAGE_NAME = 'v1';
export const BASE_PATH = `/${STAGE_NAME}`;

/** The collection of pets, below the base path: listed and added there. */
export const PETS_PATH = '/pets';

/** Where a created pet can be read: the value of `Location` on 201. */
export const petLocation = (id: number): string => `${BASE_PATH}${PETS_PATH}/${id}`;
