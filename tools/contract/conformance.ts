import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { CodeOptions, ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { OPENAPI_YAML_PATH } from '#tools/openapi/document-file';
import type { ObservedExchange } from './api-client';

/** Holds answers to docs/openapi.yaml: status, body (Ajv, JSON Schema 2020-12), headers, Content-Type. */

type Json = { [key: string]: unknown };

/** How a validator reads a `pattern`: Ajv's `code.regExp`. */
export type PatternEngine = NonNullable<CodeOptions['regExp']>;

export type Exchange = Pick<ObservedExchange, 'method' | 'path' | 'status' | 'headers' | 'text' | 'json'>;

const DOCUMENT_ID = 'openapi.json';
/** Fields of the OpenAPI Object other than `externalDocs` (also a Schema Object keyword). */
const OPENAPI_OBJECT_FIELDS = [
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'paths',
  'webhooks',
  'components',
  'security',
  'tags',
];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const escapeToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');
const unescapeToken = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');

interface Candidates {
  readonly label: string;
  readonly responses: Readonly<Record<string, { pointer: string }>>;
}

const formatError = (error: ErrorObject): string => {
  const where = error.instancePath === '' ? 'body' : `body${error.instancePath}`;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String(error.params.additionalProperty)})`
      : error.keyword === 'enum' || error.keyword === 'const'
        ? ` (${JSON.stringify(error.params.allowedValues ?? error.params.allowedValue)})`
        : '';
  return `${where} ${error.message}${extra}`;
};

export class Contract {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  /** @param regExp how `pattern`s are read. @default JavaScript's RegExp with the `u` flag, as JSON Schema 2020-12 says */
  constructor(
    readonly document: Json,
    readonly source = 'the OpenAPI document',
    regExp?: PatternEngine,
  ) {
    this.ajv = new Ajv2020({ allErrors: true, strict: true, ...(regExp ? { code: { regExp } } : {}) });
    addFormats(this.ajv);
    // OpenAPI 3.1's annotations, and the document's own fields, unknown keywords of Ajv's root.
    this.ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs', ...OPENAPI_OBJECT_FIELDS]);
    this.ajv.addSchema(document, DOCUMENT_ID);
  }

  at(pointer: string): unknown {
    return pointer
      .replace(/^#\//, '')
      .split('/')
      .map(unescapeToken)
      .reduce<unknown>((node, token) => (node as Json | undefined)?.[token], this.document);
  }

  private deref(pointer: string): { pointer: string; value: Json } {
    let current = pointer;
    for (let hops = 0; hops < 10; hops += 1) {
      const value = this.at(current) as Json | undefined;
      if (!value) throw new Error(`${this.source} has nothing at ${current}`);
      if (typeof value.$ref !== 'string') return { pointer: current, value };
      current = value.$ref;
    }
    throw new Error(`${this.source}: reference loop at ${pointer}`);
  }

  validate(schemaPointer: string, value: unknown): string[] {
    let validator = this.validators.get(schemaPointer);
    if (!validator) {
      validator = this.ajv.getSchema(`${DOCUMENT_ID}${schemaPointer}`);
      if (!validator) throw new Error(`${this.source} has no schema at ${schemaPointer}`);
      this.validators.set(schemaPointer, validator);
    }
    return validator(value) ? [] : (validator.errors ?? []).map(formatError);
  }

  private get paths(): Record<string, Json> {
    return (this.document.paths ?? {}) as Record<string, Json>;
  }

  /** The path template a request path falls under, as API Gateway matches. */
  private templateOf(requestPath: string): string | undefined {
    // The gateway serves `/pets/` as `/pets`; an empty segment elsewhere matches nothing.
    const segments = requestPath
      .replace(/(.)\/$/, '$1')
      .split('/')
      .slice(1);
    return Object.keys(this.paths).find((template) => {
      const parts = template.split('/').slice(1);
      return (
        parts.length === segments.length &&
        parts.every((part, index) => /^\{.+\}$/.test(part) || part === segments[index])
      );
    });
  }

  private candidates(method: string, requestPath: string): Candidates {
    const template = this.templateOf(requestPath);
    if (!template) {
      return {
        label: 'a path the document does not have',
        responses: { 404: { pointer: '#/components/responses/NotFound' } },
      };
    }
    const item = this.paths[template] as Json;
    const verb = method.toLowerCase();
    const responsesOf = (operation: string) =>
      Object.keys((item[operation] as { responses: Json }).responses).map((status) => ({
        status,
        pointer: `#/paths/${escapeToken(template)}/${operation}/responses/${status}`,
      }));
    if (item[verb]) {
      const operationId = (item[verb] as Json).operationId;
      return {
        label: `${method.toUpperCase()} ${template} (${String(operationId)})`,
        responses: Object.fromEntries(responsesOf(verb).map(({ status, pointer }) => [status, { pointer }])),
      };
    }
    // Another method on a known path: only what the gateway answers for every operation of it.
    const shared = METHODS.filter((operation) => item[operation])
      .flatMap(responsesOf)
      .filter(({ status, pointer }) => {
        const declared = this.at(pointer) as Json;
        return status === '405' || String(declared.$ref ?? '').startsWith('#/components/responses/');
      });
    return {
      label: `${method.toUpperCase()} ${template}, a method the path does not have`,
      responses: Object.fromEntries(shared.map(({ status, pointer }) => [status, { pointer }])),
    };
  }

  violations(exchange: Exchange): string[] {
    const requestPath = new URL(exchange.path, 'http://contract.invalid').pathname;
    if (exchange.method.toUpperCase() === 'OPTIONS' && this.templateOf(requestPath)) {
      return this.preflightViolations(exchange);
    }
    const { label, responses } = this.candidates(exchange.method, requestPath);
    const status = String(exchange.status);
    const declared = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
    if (!declared) {
      return [
        `status ${status} is not declared for ${label}; declared: ${Object.keys(responses).join(', ')}`,
      ];
    }
    const { pointer, value: response } = this.deref(declared.pointer);
    const problems: string[] = [];

    for (const [name, reference] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const header = reference.$ref
        ? this.deref(String(reference.$ref))
        : { pointer: `${pointer}/headers/${escapeToken(name)}`, value: reference };
      const value = exchange.headers.get(name);
      if (value === null) {
        if (header.value.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      if (!header.value.schema) continue;
      const schema = header.value.schema as Json;
      const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
      for (const problem of this.validate(`${header.pointer}/schema`, typed)) {
        problems.push(`header ${name}: ${problem.replace(/^body/, JSON.stringify(value))}`);
      }
    }

    const content = response.content as Record<string, Json> | undefined;
    const contentType = exchange.headers.get('content-type');
    const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
    if (!content) {
      if (exchange.text !== '') problems.push('a body is sent where the document declares none');
    } else if (!mediaType || !content[mediaType]) {
      problems.push(
        `Content-Type ${contentType ?? '(none)'} is not among the declared ${Object.keys(content).join(', ')}`,
      );
    } else if (exchange.json === undefined) {
      problems.push(`the body is not JSON: ${JSON.stringify(exchange.text.slice(0, 200))}`);
    } else if (content[mediaType].schema) {
      problems.push(...this.validate(`${pointer}/content/${escapeToken(mediaType)}/schema`, exchange.json));
    }
    return problems.map((problem) => `${problem} [${label}, response ${pointer}]`);
  }

  private preflightViolations(exchange: Exchange): string[] {
    const problems: string[] = [];
    if (exchange.status !== 204) problems.push(`a preflight answered ${exchange.status}, not 204`);
    if (exchange.text !== '') problems.push('a preflight answered with a body');
    if (exchange.headers.get('x-content-type-options') !== 'nosniff') {
      problems.push('a preflight answered without X-Content-Type-Options: nosniff');
    }
    return problems.map((problem) => `${problem} [OPTIONS ${exchange.path}, CORS preflight]`);
  }

  assertConforms(exchange: Exchange): void {
    const problems = this.violations(exchange);
    if (problems.length === 0) return;
    throw new ContractViolation(
      [
        `${exchange.method} ${exchange.path} answered ${exchange.status}, which does not conform to ${this.source}:`,
        ...problems.map((problem) => `  - ${problem}`),
        `  body: ${exchange.text.slice(0, 500)}`,
      ].join('\n'),
    );
  }
}

export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

export const loadContract = (file = OPENAPI_YAML_PATH): Contract =>
  new Contract(parse(readFileSync(file, 'utf8')) as Json, relative(process.cwd(), file) || file);
