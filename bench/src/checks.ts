/**
 * What a load job checks in every answer beyond counting it (pure; unit-tested), so a
 * misconfigured run cannot look fast: a 406 from the MCP transport, an SSE stream where
 * JSON was asked for, or an error result all answer quickly.
 *   "json-object": a 200 whose body is a JSON object with `field` equal to `equals`
 *     (a REST read of the issue with that key);
 *   "mcp-result": a 200 whose body is one JSON-RPC 2.0 response with this `id`, a
 *     `result` (no `error`) that is not `isError`, with text content, and whose
 *     `structuredContent[field]` equals `equals` (the tool read the same issue).
 * The load generator parses the bodies of both sides alike, so its CPU stays comparable.
 */
export type AnswerCheck =
  | { kind: 'json-object'; field: string; equals: string | number }
  | { kind: 'mcp-result'; id: string | number; field: string; equals: string | number };

/** Why an answer fails the check, or null when it passes. */
export function answerProblem(check: AnswerCheck, status: number, body: string): string | null {
  if (status !== 200) return `status ${status}: ${body.slice(0, 200)}`;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return `not JSON: ${body.slice(0, 200)}`;
  }
  if (!isObject(value)) return `not a JSON object: ${body.slice(0, 200)}`;
  if (check.kind === 'json-object') {
    return value[check.field] === check.equals ? null : `${check.field} is ${JSON.stringify(value[check.field])}, not ${JSON.stringify(check.equals)}`;
  }
  if (value.jsonrpc !== '2.0' || value.id !== check.id) return `not the JSON-RPC response to id ${check.id}: ${body.slice(0, 200)}`;
  if ('error' in value) return `JSON-RPC error: ${JSON.stringify(value.error).slice(0, 200)}`;
  const result = value.result;
  if (!isObject(result)) return `no JSON-RPC result: ${body.slice(0, 200)}`;
  if (result.isError === true) return `tool error result: ${JSON.stringify(result.content).slice(0, 200)}`;
  const content = result.content;
  if (!Array.isArray(content) || !content.some((c) => isObject(c) && c.type === 'text' && typeof c.text === 'string')) return 'result without text content';
  const structured = result.structuredContent;
  if (!isObject(structured) || structured[check.field] !== check.equals) {
    return `structuredContent.${check.field} is ${JSON.stringify(isObject(structured) ? structured[check.field] : structured)}, not ${JSON.stringify(check.equals)}`;
  }
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Counts the answers that fail a check, keeping the first reason for the report. */
export function answerTally(check: AnswerCheck | undefined) {
  let failed = 0;
  let first: string | undefined;
  return {
    answered(status: number, body: string) {
      if (!check) return;
      const problem = answerProblem(check, status, body);
      if (problem) {
        failed++;
        first ??= problem;
      }
    },
    get failed() {
      return failed;
    },
    get first() {
      return first;
    },
  };
}
