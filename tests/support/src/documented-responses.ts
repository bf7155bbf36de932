import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { API_OPERATIONS, closedDocument, openApiDocument, PROBLEM_CODES, type ApiOperation } from '@tracker/contracts';

/**
 * Checks an answer against the published OpenAPI document: the operation's documented
 * answer for that status, with its schema. An answer to a path or method no operation
 * serves must be one of the documented problem bodies. End-to-end tests run every answer
 * they receive through this, so the document cannot drift from what the system sends.
 * The published answer schemas are open (clients must ignore fields added within 1.x); the
 * check validates against closedDocument(), which admits no undeclared field, so an answer
 * carrying one is still caught.
 */
export interface UndocumentedAnswer {
  operation: string;
  status: number;
  problems: string[];
}

const DOC_ID = 'tracker-openapi.json';
let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function validatorFor(pointer: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(closedDocument(), DOC_ID);
  }
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Templates with more literal segments first, so `/issues/search` wins over `/issues/{key}`. */
const MATCHERS = [...API_OPERATIONS]
  .map((operation) => ({
    operation,
    pattern: new RegExp(`^${operation.path.replace(/\{\w+\}/g, '[^/]+')}$`),
    literals: operation.path.split('/').filter((s) => s && !s.startsWith('{')).length,
  }))
  .sort((a, b) => b.literals - a.literals);

export function operationFor(method: string, path: string): ApiOperation | undefined {
  const pathname = path.split('?')[0]!;
  return MATCHERS.find((m) => m.operation.method === method.toLowerCase() && m.pattern.test(pathname))?.operation;
}

/**
 * The JSON pointer of the schema that documents `status` of `operation`; `''` when that
 * status is documented without a body (304); null when it is not documented.
 */
function responseSchemaPointer(operation: ApiOperation, status: number, contentType: string): string | null {
  const doc = openApiDocument();
  const base = `/paths/${escape(operation.path)}/${operation.method}/responses/${status}`;
  let response = doc.paths[operation.path]?.[operation.method]?.responses?.[status];
  let pointer = base;
  if (response?.$ref) {
    const name = String(response.$ref).split('/').pop()!;
    response = doc.components.responses[name];
    pointer = `/components/responses/${escape(name)}`;
  }
  if (response && !response.content && !contentType) return '';
  if (!response?.content?.[contentType]) return null;
  return `${pointer}/content/${escape(contentType)}/schema`;
}

/** null when the answer is documented and matches; otherwise what is wrong. */
export function checkDocumentedAnswer(method: string, path: string, status: number, contentType: string | null, body: unknown): UndocumentedAnswer | null {
  const type = (contentType ?? '').split(';')[0]!.trim();
  const operation = operationFor(method, path);
  const label = operation ? `${operation.operationId} (${method} ${path})` : `${method} ${path} (no operation)`;
  if (method === 'HEAD') return null;

  let pointer: string | null;
  if (operation) {
    pointer = responseSchemaPointer(operation, status, type);
    if (pointer === '') {
      const empty = body === undefined || body === null || body === '' || (typeof body === 'object' && Object.keys(body as object).length === 0);
      return empty ? null : { operation: label, status, problems: [`status ${status} is documented without a body`] };
    }
    if (!pointer) return { operation: label, status, problems: [`status ${status} with ${type || 'no content type'} is not documented for this operation`] };
  } else {
    const code = (body as { code?: string } | null)?.code;
    if (type !== 'application/problem+json' || !code || !(code in PROBLEM_CODES)) {
      return { operation: label, status, problems: ['an answer outside every operation must be a documented problem'] };
    }
    const name = code.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
    pointer = `/components/schemas/${name}Problem`;
  }
  const validate = validatorFor(pointer);
  if (validate(body)) return null;
  return {
    operation: label,
    status,
    problems: (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`),
  };
}
