import { AppError, type Principal } from '@tracker/kit';
import { contextOf } from '../src';

/** A route's response as the kit's middleware leaves it: the verified principal and the request id in locals. */
const responseWith = (locals: { principal?: Principal; requestId?: string }) => ({ locals }) as unknown as Parameters<typeof contextOf>[0];

describe('contextOf', () => {
  test("a user's request: its user, workspace, workspace role and request id", () => {
    const res = responseWith({
      principal: { kind: 'user', userId: 11, workspaceId: 4, workspaceRole: 'admin', tokenId: 99 },
      requestId: 'req-1',
    });
    expect(contextOf(res)).toEqual({ userId: 11, workspaceId: 4, workspaceRole: 'admin', requestId: 'req-1' });
  });

  test('a request without a request id: null, not undefined', () => {
    const res = responseWith({ principal: { kind: 'user', userId: 11, workspaceId: 4, workspaceRole: 'member', tokenId: 99 } });
    expect(contextOf(res)).toEqual({ userId: 11, workspaceId: 4, workspaceRole: 'member', requestId: null });
  });

  test.each([
    ['a service principal', { principal: { kind: 'service', service: 'statistics' } as Principal }],
    ['no principal', {}],
  ])('%s: 401 unauthorized, no context', (_name, locals) => {
    const thrown = (() => {
      try {
        contextOf(responseWith(locals));
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ code: 'unauthorized', status: 401 });
  });
});
