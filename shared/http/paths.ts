/** API Gateway stage name, and so the base path of every URL: `https://…/v1/pets`. */
export const STAGE_NAME = 'v1';
export const BASE_PATH = `/${STAGE_NAME}`;

/** Where a created pet can be read: the value of `Location` on 201. */
export const petLocation = (id: number): string => `${BASE_PATH}/pets/${id}`;
