/** An unusable setting or setup; free of project imports, so npm start knows it when other files break. */
export class LocalConfigError extends Error {
  override readonly name: string = 'LocalConfigError';
}
