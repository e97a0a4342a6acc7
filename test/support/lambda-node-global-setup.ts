import { installLambdaNode } from '../../bench/lambda-node';

/**
 * The Lambda runtime's Node, installed once before the integration files run: several of them
 * ask for it, and two `npm ci` in bench/lambda-node at once (one per worker, on a fresh clone)
 * left one file running on this machine's Node instead. A failed install is each file's to report.
 */
export default function setup(): void {
  installLambdaNode(() => undefined);
}
