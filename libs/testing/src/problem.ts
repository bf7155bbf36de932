/** The problem+json body every error answer of a service has. */
export const problem = (status: number, code: string) =>
  expect.objectContaining({ status, code, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });
