import { createHmac, timingSafeEqual } from 'node:crypto';
import { notFound } from '#shared/platform/errors.ts';
import { deriveKey } from '#shared/platform/master-key.ts';
import * as z from '#shared/platform/zod.ts';
import { getMeta } from './store.ts';
import { CHANNEL_PATTERN, runUpdatesChannel } from './updates.ts';

/**
 * The token a client connects to the run updates' WebSocket with (`POST /ws-token-request-library`):
 * a JWT (HS256, as Centrifugo's connection tokens are) for one channel `workflow_updates:<id>` of one
 * workspace, valid UPDATES_TOKEN_TTL_SECONDS, signed with a key derived from the deployment's master
 * key. The endpoint refuses it once expired, and for any other channel.
 */
export const UPDATES_TOKEN_TTL_SECONDS = 300;

const PURPOSE = 'workflow-updates-token';
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export interface UpdatesTokenClaims {
  /** The workspace whose run it is. */
  ws: number;
  /** The one channel it may subscribe to. */
  channel: string;
  /** Expiry, epoch seconds (JWT `exp`). */
  exp: number;
}

/** The `capability` a client asks a token for: the run's channel. */
export const capabilitySchema = z
  .pipe(
    z.string().check(z.regex(CHANNEL_PATTERN, 'must be workflow_updates:<workflow_version_execution_id>')),
    z.transform((channel) => Number(channel.slice(channel.indexOf(':') + 1))),
  )
  .clone()
  .register(z.globalRegistry, {
    description: '`workflow_updates:<workflow_version_execution_id>`',
    example: 'workflow_updates:42',
  });

export type UpdatesTokenRefusal = 'invalid' | 'expired';

export class UpdatesTokenError extends Error {
  readonly reason: UpdatesTokenRefusal;

  constructor(reason: UpdatesTokenRefusal) {
    super(reason === 'expired' ? 'token expired' : 'invalid token');
    this.reason = reason;
  }
}

const sign = async (unsigned: string) =>
  createHmac('sha256', await deriveKey(PURPOSE))
    .update(unsigned, 'utf8')
    .digest();

export async function issueUpdatesToken(
  workspaceId: number,
  channel: string,
  nowMs: number,
): Promise<{ token: string; claims: UpdatesTokenClaims }> {
  const claims: UpdatesTokenClaims = {
    ws: workspaceId,
    channel,
    exp: Math.floor(nowMs / 1000) + UPDATES_TOKEN_TTL_SECONDS,
  };
  const unsigned = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return { token: `${unsigned}.${(await sign(unsigned)).toString('base64url')}`, claims };
}

/** The claims of a token this deployment signed and that has not expired; UpdatesTokenError otherwise. */
export async function verifyUpdatesToken(token: string, nowMs: number): Promise<UpdatesTokenClaims> {
  const [header, payload, signature, extra] = token.split('.');
  if (header !== HEADER || !payload || !signature || extra !== undefined)
    throw new UpdatesTokenError('invalid');
  const expected = await sign(`${header}.${payload}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new UpdatesTokenError('invalid');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as UpdatesTokenClaims;
  if (!(claims.exp * 1000 > nowMs)) throw new UpdatesTokenError('expired');
  return claims;
}

export const runUpdatesTokenSchema = z
  .object({
    success: z.literal(true),
    /** The SDK subscribes over Centrifugo's protocol at `{base URL}/connection/websocket` for this value. */
    messaging_backend: z.literal('centrifugo'),
    token_details: z.object({
      token: z.string(),
      /** The channel it may subscribe to: the capability asked for. */
      capability: z.string(),
      /** Epoch milliseconds. */
      issued: z.int(),
      expires: z.int(),
    }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'RunUpdatesToken' });

/** A token for the updates of one run of the workspace; 404 when the workspace has no such run. */
export async function requestRunUpdatesToken(
  workspaceId: number,
  executionId: number,
  nowMs: number,
): Promise<z.infer<typeof runUpdatesTokenSchema>> {
  if (!(await getMeta(workspaceId, executionId)))
    throw notFound(`workflow version execution ${executionId} not found`);
  const channel = runUpdatesChannel(executionId);
  const { token, claims } = await issueUpdatesToken(workspaceId, channel, nowMs);
  return {
    success: true,
    messaging_backend: 'centrifugo',
    token_details: { token, capability: channel, issued: nowMs, expires: claims.exp * 1000 },
  };
}
