import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express, Response } from 'express';
import type { PoolClient } from 'pg';

/**
 * Every place the services reach past the public API of express, its router, node-postgres
 * or Node's http: each one a small function here saying what it relies on and why it is
 * worth it, so the rest of the code calls a name and an upgrade has one file to re-check.
 *
 * CHECKED_AGAINST names the versions these were checked against. test/internals.test.ts
 * fails when the installed express, router or pg differs from them (then re-read each
 * comment below against the new version's source and update the pin), and exercises each
 * function against the real library, so a change of behaviour fails too. Node's own
 * internals (inProgressResponse) are not pinned, only exercised: the image runs Node 24,
 * development Node 20 or later.
 */
export const CHECKED_AGAINST = { express: '5.3.0', router: '2.3.0', pg: '8.23.1' } as const;

/**
 * Request and response classes whose instances are born with the app's own prototypes,
 * for http.createServer's IncomingMessage and ServerResponse options.
 *
 * Why: express gives every request its app's request and response prototypes with
 * Object.setPrototypeOf, after which V8 reaches their properties the slow way: measured
 * alone (10 connections, an app of 14 layers answering 3 KB), 0.079 ms of CPU per request
 * against 0.025 ms when the server creates them with those prototypes already, so that
 * express's setPrototypeOf finds them in place and changes nothing (bench/README.md).
 *
 * Relies on: express's app.handle doing `Object.setPrototypeOf(req, this.request)` and
 * `(res, this.response)` on every request, reading `app.request` / `app.response` then
 * (not a copy taken at creation), and those objects' chains ending at
 * http.IncomingMessage.prototype / http.ServerResponse.prototype (lib/request.js,
 * lib/response.js). The app's request and response prototypes become these classes'
 * prototypes, holding the same properties.
 */
export function bornWithPrototypesOf(app: Express): { IncomingMessage: typeof http.IncomingMessage; ServerResponse: typeof http.ServerResponse } {
  class AppRequest extends http.IncomingMessage {}
  class AppResponse extends http.ServerResponse {}
  app.request = adopt(AppRequest.prototype, app.request, http.IncomingMessage.prototype) as typeof app.request;
  app.response = adopt(AppResponse.prototype, app.response, http.ServerResponse.prototype) as typeof app.response;
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse as typeof http.ServerResponse };
}

/** Copies onto `target` every property `source` has between itself and `base` (the nearest one wins), but its constructor. */
function adopt(target: object, source: object, base: object): object {
  const chain: object[] = [];
  for (let proto: object | null = source; proto && proto !== base; proto = Object.getPrototypeOf(proto) as object | null) chain.unshift(proto);
  for (const proto of chain) {
    const { constructor: _constructor, ...properties } = Object.getOwnPropertyDescriptors(proto);
    Object.defineProperties(target, properties);
  }
  return target;
}

/**
 * Replaces `res.json` for this one app's responses.
 *
 * Why: express's res.json goes through res.send(string), which appends `; charset=utf-8`
 * to the Content-Type; the services answer JSON without a charset (app.ts sendJsonText).
 *
 * Relies on: each express app having a response prototype of its own
 * (`app.response = Object.create(response)` in createApplication), so the change reaches
 * this app's responses and no other app's in the same process (the tests run several).
 */
export function replaceAppJson(app: Express, json: (this: Response, body?: unknown) => Response): void {
  app.response.json = json as typeof app.response.json;
}

/**
 * The response Node's http server is writing on `socket`, if any.
 *
 * Why: a 'clientError' (bad bytes, a timeout) arrives with the socket alone; answering it
 * while a whole earlier request on the same connection is still being answered would hand
 * that request's client the error as its answer (server.ts answerClientError).
 *
 * Relies on: Node's http server keeping the response in progress as the socket's
 * `_httpMessage` (lib/_http_server.js, lib/_http_outgoing.js), unset when none is.
 */
export function inProgressResponse(socket: Duplex): http.ServerResponse | undefined {
  return (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage ?? undefined;
}

/**
 * What `send` queries leaves in one write to the server (one TCP segment when it fits):
 * each statement sent without waiting for the answer to the one before.
 *
 * Why: a transaction's BEGIN, its first statement, and its COMMIT with the writes that go
 * with it (postgres.ts writeAtCommit) leave in one round trip instead of several.
 *
 * Relies on: node-postgres's Client holding its Connection as `client.connection`, whose
 * `stream` is the net.Socket it writes to, and, with `pipeline: true`, client.query
 * writing the statement's messages to that socket synchronously, within the call; so
 * corking the socket around the calls gathers them and uncorking sends them together.
 */
export function sentTogether<R>(client: PoolClient, send: () => R): R {
  const socket = client.connection.stream;
  socket.cork();
  try {
    return send();
  } finally {
    socket.uncork();
  }
}

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  slash?: boolean;
  rawPath?: string;
}

/**
 * Every route an express app registers, as `{ method, path }` with express's `:param`
 * notation, read from its router: the routes that exist, whatever a table says (the
 * services' tests compare them with the OpenAPI document, libs/testing routes.ts).
 *
 * Relies on: express 5's `app.router` (the router package) and its `stack` of layers: a
 * route's layer has `route` with its `path` and a `methods` map (`_all` for app.all); a
 * mounted router's layer has `handle.stack`, its mount path in `rawPath`, and `slash`
 * when it is mounted at '/'.
 */
export function registeredRoutes(app: Express): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') routes.push({ method: method.toUpperCase(), path: prefix + layer.route.path });
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, layer.slash ? prefix : prefix + (layer.rawPath ?? ''));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return routes;
}
