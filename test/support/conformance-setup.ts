import { observeResponses } from './api-client';
import { loadContract } from './conformance';
import { assertResponseHeaders } from './response-headers';

/**
 * Setup file of the `http` test project: every response an ApiClient receives is checked against
 * docs/openapi.yaml and for the headers every response carries (nosniff, no-store, Retry-After
 * on 429 and 503); a response that fails either fails the test that made the request.
 */
const contract = loadContract();
observeResponses((exchange) => contract.assertConforms(exchange));
observeResponses(assertResponseHeaders);
