import { answerProblem, answerTally, type AnswerCheck } from '../src/checks';
import { costRatios } from '../src/stats';

const issue = { id: 5, key: 'Q1-5', title: 'An issue', version: 3 };
const mcp: AnswerCheck = { kind: 'mcp-result', id: 1, field: 'key', equals: 'Q1-5' };
const rest: AnswerCheck = { kind: 'json-object', field: 'key', equals: 'Q1-5' };
const result = (value: Record<string, unknown>) => JSON.stringify({ result: value, jsonrpc: '2.0', id: 1 });
const success = result({ content: [{ type: 'text', text: JSON.stringify(issue) }], structuredContent: issue });

describe('B8 answer checks', () => {
  it('passes a tool result carrying the issue and a REST answer of it', () => {
    expect(answerProblem(mcp, 200, success)).toBeNull();
    expect(answerProblem(rest, 200, JSON.stringify(issue))).toBeNull();
  });

  it('fails what answers fast without being the tool call: transport refusals, streams, errors, another issue', () => {
    expect(answerProblem(mcp, 406, '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Not Acceptable"},"id":null}')).toMatch(/^status 406/);
    expect(answerProblem(mcp, 200, `event: message\ndata: ${success}\n\n`)).toMatch(/^not JSON/);
    expect(answerProblem(mcp, 200, JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown tool' } }))).toMatch(/^JSON-RPC error/);
    expect(answerProblem(mcp, 200, result({ isError: true, content: [{ type: 'text', text: '{"status":404}' }] }))).toMatch(/^tool error result/);
    expect(answerProblem(mcp, 200, JSON.stringify({ jsonrpc: '2.0', id: 2, result: {} }))).toMatch(/^not the JSON-RPC response to id 1/);
    expect(answerProblem(mcp, 200, result({ content: [], structuredContent: issue }))).toBe('result without text content');
    expect(answerProblem(mcp, 200, result({ content: [{ type: 'text', text: '{}' }], structuredContent: { ...issue, key: 'Q1-6' } }))).toMatch(/^structuredContent.key is "Q1-6"/);
    expect(answerProblem(rest, 200, '[]')).toMatch(/^not a JSON object/);
    expect(answerProblem(rest, 401, '{"status":401}')).toMatch(/^status 401/);
  });

  it('counts the failures and keeps the first reason', () => {
    const tally = answerTally(mcp);
    tally.answered(200, success);
    tally.answered(503, 'unavailable');
    tally.answered(200, 'nope');
    expect(tally.failed).toBe(2);
    expect(tally.first).toBe('status 503: unavailable');
    const unchecked = answerTally(undefined);
    unchecked.answered(500, '');
    expect(unchecked.failed).toBe(0);
  });

  it('states both ratios as times the REST request', () => {
    const r = costRatios({ rps: 1200, cpuMs: 1.5 }, { rps: 800, cpuMs: 2.1 });
    expect(r.throughput).toBeCloseTo(1.5);
    expect(r.cpu).toBeCloseTo(1.4);
  });
});
