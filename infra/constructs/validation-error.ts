import type { IConstruct } from 'constructs';

/** aws-cdk-lib's own `ValidationError(message, scope)` is internal (a branded constructor argument). */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  readonly constructPath: string;

  constructor(message: string, scope: IConstruct) {
    super(`${scope.node.path}: ${message}`);
    this.constructPath = scope.node.path;
  }
}
