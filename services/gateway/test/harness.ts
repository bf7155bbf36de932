import { randomBytes } from 'node:crypto';
import { bodyDigest, checkTicket, PRINCIPAL_HEADER, serve, type RunningServer, type UserPrincipal } from '@tracker/kit';
import { hashToken } from '@tracker/authz';
import { devTicketKeys, sendJson, startFakeUpstream, type UpstreamRequest } from '@tracker/testing';
import { createGatewayService, type GatewayService } from '../src/app';
import { loadGatewayConfig } from '../src/config';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A well-formed bearer token nobody has seen before. */
export const newToken = () => `trk_${[...randomBytes(40)].map((b) => BASE62[b % 62]).join('')}`;

let nextId = 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
export const principalOf = (workspaceRole: 'admin' | 'member' = 'member'): UserPrincipal => ({
  kind: 'user',
  userId: nextId++,
  workspaceId: nextId++,
  workspaceRole,
  tokenId: nextId++,
});

/**
 * A stand-in for the access service behind a real gateway: it answers
 * `POST /internal/auth/resolve` from its own token table (only to the gateway's signed
 * tickets) and `GET /api/v1/me` with the principal the gateway's ticket carries, so a
 * test sees exactly whom the gateway let through. It never writes the Redis cache:
 * tests write the entries they need. `resolves` counts lookups (cache misses).
 */
export interface FakeAccessForGateway {
  url: string;
  tokens: Map<string, UserPrincipal>;
  resolves: () => number;
  /** Token uses the gateway reported (POST /internal/tokens/used). */
  uses: Array<{ token_id: number; at: string }>;
  setDown: (down: boolean) => void;
  close: () => Promise<void>;
}

export async function startFakeAccessForGateway(): Promise<FakeAccessForGateway> {
  const tokens = new Map<string, UserPrincipal>();
  const uses: Array<{ token_id: number; at: string }> = [];
  let resolves = 0;
  let down = false;
  const upstream = await startFakeUpstream((request, res) => {
    const send = (status: number, json: unknown) => sendJson(res, status, json);
    const ticket = checkTicket(request.headers[PRINCIPAL_HEADER] as string | undefined, devTicketKeys('access'), {
      audience: 'access',
      method: request.method,
      path: request.url,
      bodyDigest: bodyDigest(request.bytes),
    });
    if (!ticket.ok) return send(401, { code: 'unauthorized', detail: ticket.reason });
    if (request.method === 'POST' && request.url === '/internal/auth/resolve') {
      if (ticket.principal.kind !== 'service' || ticket.principal.service !== 'gateway') return send(401, { code: 'unauthorized' });
      resolves++;
      if (down) return send(500, { code: 'internal_error' });
      const { token_hash } = JSON.parse(request.body) as { token_hash: string };
      return send(200, { principal: tokens.get(token_hash) ?? null });
    }
    if (request.method === 'POST' && request.url === '/internal/tokens/used' && ticket.principal.kind === 'service') {
      uses.push(...(JSON.parse(request.body) as { uses: Array<{ token_id: number; at: string }> }).uses);
      res.writeHead(204).end();
      return;
    }
    if (request.method === 'GET' && request.url === '/api/v1/me') {
      return ticket.principal.kind === 'user' ? send(200, { principal: ticket.principal }) : send(401, { code: 'unauthorized' });
    }
    send(404, { code: 'not_found' });
  });
  return {
    url: upstream.url,
    tokens,
    uses,
    resolves: () => resolves,
    setDown: (value) => {
      down = value;
    },
    close: upstream.close,
  };
}

/**
 * A service behind the gateway that records every request it receives (headers as they
 * arrived, body as bytes) and answers 200 `{"ok":true}`; with `setHanging(true)` it
 * accepts requests and never answers.
 */
export interface RecordingUpstream {
  url: string;
  received: UpstreamRequest[];
  setHanging: (hanging: boolean) => void;
  close: () => Promise<void>;
}

export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  let hanging = false;
  const upstream = await startFakeUpstream((_request, res) => {
    if (hanging) return;
    sendJson(res, 200, { ok: true });
  });
  return {
    url: upstream.url,
    received: upstream.requests,
    setHanging: (value) => {
      hanging = value;
    },
    close: upstream.close,
  };
}

export interface GatewayUnderTest {
  url: string;
  gateway: GatewayService;
  /** GET /api/v1/me with the token: status and the principal the service was given. */
  me: (token: string) => Promise<{ status: number; principal?: UserPrincipal }>;
  close: () => Promise<void>;
}

/** The real gateway, in this process on a random port, in front of `access` (every upstream unless `env` says otherwise). */
export async function startGateway(access: FakeAccessForGateway, env: Record<string, string>): Promise<GatewayUnderTest> {
  const gateway = createGatewayService(
    loadGatewayConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      ACCESS_URL: access.url,
      ISSUES_URL: access.url,
      STATISTICS_URL: access.url,
      AGENT_URL: access.url,
      WEB_URL: access.url,
      // Other test files share the client address 127.0.0.1: no failure limit here.
      AUTH_FAILURES_PER_MINUTE: '0',
      ...env,
    }),
  );
  const server: RunningServer = await serve(gateway.app, { port: 0, host: '127.0.0.1', logger: gateway.logger, graceMs: 100 });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    gateway,
    async me(token) {
      const response = await fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await response.json()) as { principal?: UserPrincipal };
      return { status: response.status, principal: body.principal };
    },
    async close() {
      await server.shutdown();
      await gateway.close();
    },
  };
}

export const tokenHashOf = hashToken;

/** Resolves once the client is connected (or after `ms`). */
export const whenReady = (redis: { status: string; once: (event: 'ready', listener: () => void) => unknown }, ms = 5000) =>
  new Promise<void>((resolve, reject) => {
    if (redis.status === 'ready') return resolve();
    const timer = setTimeout(() => reject(new Error(`redis not ready after ${ms} ms (${redis.status})`)), ms);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
