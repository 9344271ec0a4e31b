import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import * as z from '#shared/platform/zod.ts';
import { ENV } from './config.ts';
import { logger } from './logger.ts';

/**
 * The one guarded client for every URL a user supplied (webhooks, workflow callbacks, ENDPOINT nodes).
 *
 * - Only `http:`/`https:`, no userinfo, at most 2048 characters; an IP literal in a refused range is
 *   refused before connecting, however it was spelled (the WHATWG parser normalises `2130706433`,
 *   `0x7f.1`, `0177.0.0.1`, ... to `127.0.0.1`).
 * - At connect time `request-filtering-agent` checks the address the name resolved to, so a name that
 *   resolves (or re-resolves: DNS rebinding) to a refused address is refused too. Refused: every address
 *   that is not global unicast (loopback, private, carrier-grade NAT, link-local, unique-local, multicast,
 *   unspecified, broadcast, IPv4-mapped, documentation and other reserved ranges).
 * - No redirect is followed: a 3xx is returned as it is. One timeout covers connecting and reading the
 *   whole answer; the answer's body is capped.
 * - `OUTBOUND_ALLOWED_HOSTS` (comma list of `host` or `host:port`) is the only exception: a request to
 *   an allowed host skips the address filter and may use plain `http` at registration.
 */
export type OutboundErrorCode = 'invalid_url' | 'refused' | 'timeout' | 'too_large' | 'network';

/**
 * Why a request failed. `invalid_url`: the URL (or a header) is not acceptable; `refused`: the address is
 * not allowed; `timeout`: no complete answer in time; `too_large`: the answer's body is over the cap;
 * `network`: anything else on the way (DNS, connection, TLS). Messages name the host at most, never an
 * address it resolved to.
 */
export class OutboundError extends Error {
  readonly code: OutboundErrorCode;

  constructor(code: OutboundErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = 'OutboundError';
  }
}

export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as given, except the headers the client manages (host, content-length, hop-by-hop ones). */
  headers?: Record<string, string>;
  /** Sent with a `content-length`. */
  body?: string | Buffer;
  /** Connect plus the whole answer. Default OUTBOUND_TIMEOUT_MS, else 15 000. */
  timeoutMs?: number;
  /** Default 1 MiB. */
  maxResponseBytes?: number;
  /**
   * When the answer is over `maxResponseBytes`: false (default) fails with `too_large`; true answers
   * its status, headers and first `maxResponseBytes` bytes (`truncated: true`) and stops reading, for
   * callers that need the status only (webhook deliveries).
   */
  truncateResponse?: boolean;
  /**
   * Name resolution (default `dns.lookup`). Whatever it resolves to is still filtered: tests use it to
   * make a name resolve to a refused address.
   */
  lookup?: LookupFunction;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The body was cut at `maxResponseBytes` (only with `truncateResponse`). */
  truncated?: boolean;
}

export const OUTBOUND_DEFAULT_TIMEOUT_MS = 15_000;
export const OUTBOUND_MAX_RESPONSE_BYTES = 1024 * 1024;
export const OUTBOUND_MAX_URL_LENGTH = 2048;

/**
 * Kept-alive agents, one pair per container, so that thousands of deliveries to one endpoint reuse
 * connections. The filtering agents check each new connection's address; the plain ones serve only the
 * allowed hosts, so a connection to an allowed host is never reused for one that is not.
 */
const filteringAgents = {
  'http:': new RequestFilteringHttpAgent({ keepAlive: true }),
  'https:': new RequestFilteringHttpsAgent({ keepAlive: true }),
};
const allowedHostAgents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/** Headers the client sets itself (or that only make sense hop by hop): a caller's value is dropped. */
const MANAGED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
  'proxy-authorization',
]);

const REFUSED_ADDRESS =
  'loopback, private, link-local and other non-public addresses are not allowed (an operator may allow a host with OUTBOUND_ALLOWED_HOSTS)';

type CheckedUrl =
  | { ok: true; url: URL; allowed: boolean }
  | { ok: false; code: 'invalid_url' | 'refused'; reason: string };

/** The checks that need no DNS, shared by `outboundRequest` and `checkOutboundUrl`. */
function inspectUrl(raw: string): CheckedUrl {
  if (raw.length > OUTBOUND_MAX_URL_LENGTH) {
    return {
      ok: false,
      code: 'invalid_url',
      reason: `the URL is longer than ${OUTBOUND_MAX_URL_LENGTH} characters`,
    };
  }
  const url = URL.parse(raw);
  if (!url) return { ok: false, code: 'invalid_url', reason: 'the URL is not valid' };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, code: 'invalid_url', reason: 'only http and https URLs are allowed' };
  }
  if (url.username || url.password) {
    return { ok: false, code: 'invalid_url', reason: 'the URL must not contain a user name or password' };
  }
  const allowed = isAllowedHost(url);
  if (!allowed) {
    const range = refusedRangeOf(hostOf(url));
    if (range)
      return {
        ok: false,
        code: 'refused',
        reason: `the address of ${url.hostname} is not allowed: ${REFUSED_ADDRESS}`,
      };
  }
  return { ok: true, url, allowed };
}

/** The host as `node:http` wants it: IPv6 literals without their brackets. */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The range a literal address falls in when it is refused, else undefined (a name, or a global unicast
 * address). The same rule as `request-filtering-agent` (every ipaddr.js range but `unicast`), plus the
 * deprecated IPv4-compatible IPv6 addresses (`::a.b.c.d`), which ipaddr.js counts as unicast.
 */
function refusedRangeOf(host: string): string | undefined {
  if (isIP(host) === 0) return undefined;
  const address = ipaddr.parse(host);
  const range = address.range();
  if (range !== 'unicast') return range;
  if (address.kind() === 'ipv6' && address.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return undefined;
}
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

interface AllowedHost {
  host: string;
  port?: string;
}

let allowListSource: string | undefined;
let allowList: AllowedHost[] = [];

/** OUTBOUND_ALLOWED_HOSTS, read at call time (tests and the local runtime set it), parsed once per value. */
function allowedHosts(): AllowedHost[] {
  const source = process.env[ENV.outboundAllowedHosts] ?? '';
  if (source !== allowListSource) {
    allowListSource = source;
    allowList = source
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .flatMap((entry) => {
        const parsed = parseAllowedHost(entry);
        if (!parsed)
          logger.warn(`${ENV.outboundAllowedHosts}: ignoring an entry that is not host or host:port`, {
            entry,
          });
        return parsed ? [parsed] : [];
      });
  }
  return allowList;
}

function parseAllowedHost(entry: string): AllowedHost | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]/?#@\s]+)(?::(\d{1,5}))?$/.exec(entry);
  if (!match) return undefined;
  const url = URL.parse(`http://${match[1]}`);
  if (url?.pathname !== '/') return undefined;
  if (match[2] === undefined) return { host: normaliseHost(url.hostname) };
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535 ? { host: normaliseHost(url.hostname), port: String(port) } : undefined;
}

function normaliseHost(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '');
}

function isAllowedHost(url: URL): boolean {
  const hosts = allowedHosts();
  if (hosts.length === 0) return false;
  const host = normaliseHost(url.hostname);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return hosts.some(
    (allowed) => allowed.host === host && (allowed.port === undefined || allowed.port === port),
  );
}

/**
 * Static check of a URL a user registers (webhooks), without DNS: the checks `outboundRequest` makes
 * before connecting, and stricter ones that only make sense at registration: `https` (plain `http` only
 * for an allowed host) and no `localhost` name (always loopback). A name that resolves to a refused
 * address passes here and is refused when a request is made.
 */
export function checkOutboundUrl(url: string): { ok: true; url: URL } | { ok: false; reason: string } {
  const checked = inspectUrl(url);
  if (!checked.ok) return { ok: false, reason: checked.reason };
  if (checked.allowed) return { ok: true, url: checked.url };
  if (checked.url.protocol !== 'https:') return { ok: false, reason: 'the URL must use https' };
  const host = normaliseHost(checked.url.hostname);
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return { ok: false, reason: `the address of ${checked.url.hostname} is not allowed: ${REFUSED_ADDRESS}` };
  }
  return { ok: true, url: checked.url };
}

/**
 * One request to a URL a user supplied. Resolves with any HTTP answer (3xx included, never followed);
 * rejects with an `OutboundError` only.
 */
export async function outboundRequest(request: OutboundRequest): Promise<OutboundResponse> {
  const checked = inspectUrl(request.url);
  if (!checked.ok) throw new OutboundError(checked.code, checked.reason);
  const { url, allowed } = checked;
  const protocol = url.protocol as 'http:' | 'https:';
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const options: http.RequestOptions = {
    protocol,
    hostname: hostOf(url),
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    method: request.method ?? 'GET',
    headers: outgoingHeaders(request.headers, body),
    agent: (allowed ? allowedHostAgents : filteringAgents)[protocol],
    ...(request.lookup ? { lookup: request.lookup } : {}),
  };
  const timeoutMs = request.timeoutMs ?? defaultTimeoutMs();
  const maxBytes = request.maxResponseBytes ?? OUTBOUND_MAX_RESPONSE_BYTES;
  const host = url.hostname;

  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    let req: http.ClientRequest;
    try {
      req = (protocol === 'https:' ? https : http).request(options);
    } catch (error) {
      return reject(toOutboundError(error as Error, host));
    }
    const fail = (error: OutboundError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new OutboundError('timeout', `${host} did not answer completely within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const tooLarge = () =>
      new OutboundError('too_large', `the answer from ${host} is larger than ${maxBytes} bytes`);

    req.on('error', (error) => fail(toOutboundError(error, host)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const overCap = (): void => {
        if (!request.truncateResponse) {
          fail(tooLarge());
          return;
        }
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        const kept = Buffer.concat(chunks, size).subarray(0, maxBytes);
        req.destroy();
        resolve({ status, headers: res.headers, body: kept, truncated: true });
      };
      if (Number(res.headers['content-length']) > maxBytes) return overCap();
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size > maxBytes) overCap();
      });
      res.on('error', (error) => fail(toOutboundError(error, host)));
      res.on('close', () => {
        if (!res.complete)
          fail(new OutboundError('network', `${host} closed the connection before the answer was complete`));
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, size) });
      });
    });
    req.end(body);
  });
}

/** The timeout of a request that names none: OUTBOUND_TIMEOUT_MS, else 15 s. */
export function defaultTimeoutMs(): number {
  const configured = Number(process.env[ENV.outboundTimeoutMs]);
  return Number.isFinite(configured) && configured > 0 ? configured : OUTBOUND_DEFAULT_TIMEOUT_MS;
}

function outgoingHeaders(headers: Record<string, string> | undefined, body: Buffer | undefined) {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (MANAGED_HEADERS.has(name.toLowerCase())) continue;
    try {
      http.validateHeaderName(name);
      http.validateHeaderValue(name, value);
    } catch {
      throw new OutboundError('invalid_url', `the header "${name.slice(0, 100)}" is not a valid HTTP header`);
    }
    out[name] = value;
  }
  if (body !== undefined) out['content-length'] = String(body.length);
  return out;
}

/** request-filtering-agent 3.2.1 reports a refused address only by this message (no error code). */
const AGENT_REFUSAL = /^DNS lookup .* is not allowed\./;

const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/;

function toOutboundError(error: Error & { code?: string }, host: string): OutboundError {
  if (error instanceof OutboundError) return error;
  if (AGENT_REFUSAL.test(error.message)) {
    return new OutboundError('refused', `the address of ${host} is not allowed: ${REFUSED_ADDRESS}`);
  }
  const code = typeof error.code === 'string' ? error.code : undefined;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return new OutboundError('network', `${host} could not be resolved (${code})`);
    case 'ECONNREFUSED':
      return new OutboundError('network', `${host} did not accept the connection (${code})`);
    case 'ETIMEDOUT':
      return new OutboundError('timeout', `connecting to ${host} timed out (${code})`);
  }
  if (code && TLS_ERROR.test(code))
    return new OutboundError('network', `the TLS handshake with ${host} failed (${code})`);
  return new OutboundError('network', `the request to ${host} failed (${code ?? 'connection error'})`);
}

/**
 * A URL the service will call later (a webhook, a run's callback, a provider base URL), checked as the
 * outbound client's registration rule: `https` (plain `http` only for a host in OUTBOUND_ALLOWED_HOSTS),
 * no user name or password, no IP literal in a refused range, no `localhost`. The address a host name
 * resolves to is checked again at every connection.
 */
export const outboundUrl = () =>
  z.string().check(
    z.trim(),
    z.minLength(1),
    z.maxLength(OUTBOUND_MAX_URL_LENGTH),
    z.superRefine((text, ctx) => {
      const checked = checkOutboundUrl(text);
      if (!checked.ok) ctx.addIssue({ code: 'custom', message: checked.reason });
    }),
  );
