import type { IConstruct } from 'constructs';

/**
 * Props (or a stage configuration) a construct cannot build a deployable stack from, reported with
 * the construct's path, e.g. `PetStore-staging/Api: …`. aws-cdk-lib throws its own
 * `ValidationError(message, scope)` the same way, but keeps that class internal (its constructor
 * takes a branded literal from a private module), so the constructs here throw this one.
 */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  /** Where in the construct tree the error comes from. */
  readonly constructPath: string;

  constructor(message: string, scope: IConstruct) {
    super(`${scope.node.path}: ${message}`);
    this.constructPath = scope.node.path;
  }
}
