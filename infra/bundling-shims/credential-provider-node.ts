import { type FromEnvInit, fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Put in place of `@aws-sdk/credential-provider-node` in every Lambda bundle (infra/bundling.ts,
 * `alias`). The SDK's clients take their default credentials from that package's
 * `defaultProvider`: a chain that reads the environment first, then the shared files, SSO, a
 * credential process, a web identity token, the container and the instance metadata endpoints,
 * and carries the STS and SSO clients to do so. In Lambda the function's role's credentials are
 * always in the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
 * reserved variables), so the chain always stops at its first link and the rest is weight every
 * cold start pays. This is that first link alone. Run outside Lambda without the variables, a
 * bundle fails its first call at once with the SDK's `CredentialsProviderError` ("Unable to find
 * environment variable credentials."), never reaching for the instance metadata service
 * (docs/decisions/0005-environment-credentials-only.md).
 */
export const defaultProvider = (init: FromEnvInit = {}) => fromEnv(init);
