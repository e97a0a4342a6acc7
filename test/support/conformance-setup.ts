import { observeResponses } from './api-client';
import { loadContract } from './conformance';

/**
 * Setup file of the `http` test project: every response an ApiClient receives is checked against
 * docs/openapi.yaml, and a response that breaks it fails the test that made the request.
 */
const contract = loadContract();
observeResponses((exchange) => contract.assertConforms(exchange));
