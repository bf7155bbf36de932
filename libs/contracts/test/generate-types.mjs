// Generates TypeScript types from the OpenAPI document read from stdin with openapi-typescript
// and its DEFAULT options, as an integrator runs it; prints them. Its dependencies are ES
// modules only, so the jest tests run it in its own node process.
import openapiTS, { astToString } from 'openapi-typescript';

let input = '';
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(astToString(await openapiTS(JSON.parse(input))));
