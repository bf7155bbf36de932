import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { API_OPERATIONS, closedDocument, openApiDocument, requestSchemaOf, REQUEST_EXAMPLES } from '../src';

/**
 * Every example of the published document (libs/contracts/src/examples.ts) validates against
 * the schema it illustrates, with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1), on a
 * closed copy of the document (closedDocument: no undeclared field passes), so examples cannot
 * drift from the schemas.
 */

const doc = openApiDocument();
const DOC_ID = 'tracker-openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(closedDocument(), DOC_ID);

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const compiled = new Map<string, ValidateFunction>();
function validatorAt(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

interface Example {
  where: string;
  schemaPointer: string;
  value: unknown;
}

const resolve = (object: any, pointer: string): [any, string] => {
  if (!object?.$ref) return [object, pointer];
  const target = String(object.$ref).slice(1);
  return [target.split('/').slice(1).reduce((o: any, key) => o[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc), target];
};

/** Every example of a media type object (`example`, or each of `examples`). */
function mediaExamples(media: any, pointer: string, where: string): Example[] {
  const schemaPointer = `${pointer}/schema`;
  if ('example' in media) return [{ where, schemaPointer, value: media.example }];
  return Object.entries(media.examples ?? {}).map(([name, example]: [string, any]) => ({ where: `${where} (${name})`, schemaPointer, value: example.value }));
}

function collect() {
  const parameters: Example[] = [];
  const bodies: Example[] = [];
  const answers: Example[] = [];
  const missing: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, operation] of Object.entries(item)) {
      const base = `/paths/${escape(path)}/${method}`;
      const name = operation.operationId as string;
      (operation.parameters ?? []).forEach((reference: any, i: number) => {
        const [parameter, pointer] = resolve(reference, `${base}/parameters/${i}`);
        const where = `${name} parameter ${parameter.name}`;
        if (!('example' in parameter)) missing.push(where);
        else parameters.push({ where, schemaPointer: `${pointer}/schema`, value: parameter.example });
      });
      if (operation.requestBody) {
        const media = operation.requestBody.content['application/json'];
        if (!('example' in media)) missing.push(`${name} request body`);
        else bodies.push({ where: `${name} request body`, schemaPointer: `${base}/requestBody/content/application~1json/schema`, value: media.example });
      }
      for (const [status, reference] of Object.entries(operation.responses as Record<string, any>)) {
        const [response, pointer] = resolve(reference, `${base}/responses/${status}`);
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, any>)) {
          const found = mediaExamples(media, `${pointer}/content/${escape(type)}`, `${name} ${status} ${type}`);
          if (!found.length && /^[245]/.test(status)) missing.push(`${name} ${status} ${type}`);
          answers.push(...found);
        }
      }
    }
  }
  return { parameters, bodies, answers, missing };
}

const { parameters, bodies, answers, missing } = collect();

/** The `examples` of every schema inside the components (properties included). */
function schemaExamples(): Example[] {
  const found: Example[] = [];
  const walk = (node: any, pointer: string) => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    (node.examples ?? []).forEach((value: unknown, i: number) => found.push({ where: `${pointer} example ${i}`, schemaPointer: pointer, value }));
    for (const [name, child] of Object.entries(node.properties ?? {})) walk(child, `${pointer}/properties/${escape(name)}`);
    if (node.items) walk(node.items, `${pointer}/items`);
    for (const key of ['anyOf', 'oneOf', 'allOf']) (node[key] ?? []).forEach((child: unknown, i: number) => walk(child, `${pointer}/${key}/${i}`));
  };
  for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, unknown>)) walk(schema, `/components/schemas/${escape(name)}`);
  return found;
}

const failures = (examples: Example[]) =>
  examples.flatMap(({ where, schemaPointer, value }) => {
    const validate = validatorAt(schemaPointer);
    return validate(value) ? [] : [`${where}: ${ajv.errorsText(validate.errors, { separator: '; ' })}`];
  });

describe('the examples of the OpenAPI document', () => {
  test('then every parameter, every request body and every 2xx, 4xx and 5xx answer with a body has one', () => {
    expect(missing).toEqual([]);
    expect(bodies).toHaveLength(API_OPERATIONS.filter((o) => o.body).length);
    expect(answers.length).toBeGreaterThan(200);
    expect(parameters.length).toBeGreaterThan(20);
  });

  test('when every parameter example is validated against its schema, then all are valid', () => {
    expect(failures(parameters)).toEqual([]);
  });

  test('when every request body example is validated against its schema, then all are valid', () => {
    expect(failures(bodies)).toEqual([]);
  });

  test('when every answer example (problem bodies included) is validated against its closed schema, then all are valid', () => {
    expect(failures(answers)).toEqual([]);
  });

  test('when the examples of the schemas and their properties are validated against them, then all are valid', () => {
    const examples = schemaExamples();
    expect(examples.length).toBeGreaterThan(40);
    expect(failures(examples)).toEqual([]);
  });

  test('then the request examples are accepted by the very schemas the services parse requests with', () => {
    for (const operation of API_OPERATIONS.filter((o) => o.body)) {
      const example = (REQUEST_EXAMPLES as Record<string, unknown>)[operation.operationId];
      const result = requestSchemaOf(operation)!.safeParse(example);
      expect([operation.operationId, result.error?.issues ?? []]).toEqual([operation.operationId, []]);
    }
  });

  test('then the Idempotency-Key examples differ from operation to operation (a contract test sends them all)', () => {
    const keys = parameters.filter((p) => p.where.endsWith('parameter Idempotency-Key')).map((p) => p.value);
    expect(keys).toHaveLength(API_OPERATIONS.filter((o) => o.idempotency).length);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test("then the path examples name the example world: issue WEB-1, queue 1, user 2, dashboard 1, Ada's token 1, webhook 1 and its delivery 1", () => {
    expect(Object.fromEntries(Object.values(doc.components.parameters as Record<string, any>).map((p) => [p.name, p.example]))).toEqual({
      key: 'WEB-1',
      queue_id: 1,
      user_id: 2,
      dashboard_id: 1,
      token_id: 1,
      webhook_id: 1,
      delivery_id: 1,
    });
  });

  test('when an example carries a field its schema does not declare, then the check catches it (the check is not vacuous)', () => {
    const me = answers.find((a) => a.where === 'getMe 200 application/json')!;
    expect(failures([{ ...me, value: { ...(me.value as object), nickname: 'ada' } }])).toHaveLength(1);
    const problem = answers.find((a) => a.where === 'getMe 401 application/problem+json')!;
    expect(failures([{ ...problem, value: { ...(problem.value as object), hint: 'x' } }])).toHaveLength(1);
  });
});
