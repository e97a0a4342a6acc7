/** Files the local server serves outside the stage, to GET without a key (the API reference). */
export interface StaticFile {
  readonly contentType: string;
  readonly body: string;
}

/** By path; a key `/docs/*` serves everything below `/docs`. */
export type StaticRoutes = Readonly<Record<string, StaticFile>>;

export const staticFile = (routes: StaticRoutes, path: string): StaticFile | undefined =>
  Object.hasOwn(routes, path) ? routes[path] : routes[`${/^(\/[^/]+)\//.exec(path)?.[1] ?? '\0'}/*`];
