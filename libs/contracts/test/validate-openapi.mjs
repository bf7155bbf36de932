// Validates the OpenAPI document read from stdin against the official OpenAPI schemas
// (the validator is ESM only, so the jest test runs it in its own node process).
import { Validator } from '@seriousme/openapi-schema-validator';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }));
