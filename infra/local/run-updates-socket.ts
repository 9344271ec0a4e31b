import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  channelExecution,
  finishedRunUpdate,
  type RunUpdate,
  type RunUpdatesPublisher,
} from '#shared/workflows/engine/updates.ts';
import { UpdatesTokenError, verifyUpdatesToken } from '#shared/workflows/engine/updates-token.ts';

/**
 * The run updates' WebSocket endpoint of the local runtime (`/connection/websocket` on the gateway's
 * port): the part of Centrifugo's JSON protocol the `centrifuge` client (the PromptLayer SDK's
 * `runWorkflow`) uses. A client connects with a token of `POST /ws-token-request-library`, subscribes to
 * the one channel the token names, and receives the run's update when the engine publishes it (this is
 * the engine's publisher adapter), or at once when the run had already finished. Each subscription
 * receives the update once. Other commands are answered "not available".
 */
export const RUN_UPDATES_PATH = '/connection/websocket';

/** Centrifugo's error and disconnect codes, as its clients read them. */
const ERRORS = {
  unauthorized: { code: 101, message: 'unauthorized' },
  permissionDenied: { code: 103, message: 'permission denied' },
  methodNotFound: { code: 104, message: 'method not found' },
  alreadySubscribed: { code: 105, message: 'already subscribed' },
  badRequest: { code: 107, message: 'bad request' },
  notAvailable: { code: 108, message: 'not available' },
  tokenExpired: { code: 109, message: 'token expired' },
} as const;
const INVALID_TOKEN = { code: 3500, reason: 'invalid token' };
const BAD_REQUEST = { code: 3501, reason: 'bad request' };
/** Commands larger than this end the connection (a client of this endpoint sends a token and a channel). */
const MAX_FRAME_BYTES = 64 * 1024;

export interface RunUpdatesSocketOptions {
  /** Runs the endpoint's AWS calls (token key, run reads) with its grants, as a function of the stack would. */
  invoke<T>(call: () => Promise<T>): Promise<T>;
  onError?(error: unknown): void;
  now?(): number;
}

interface Connection {
  socket: WebSocket;
  /** Set by a valid connect command: the token's workspace and channel. */
  workspaceId?: number;
  allowedChannel?: string;
  /** Subscribed channels, each with whether its update was sent. */
  subscriptions: Map<string, { sent: boolean }>;
  /** The frames being answered, in order. */
  pending: Promise<void>;
}

type Command = { id?: number } & Record<string, unknown>;

export class RunUpdatesSocket implements RunUpdatesPublisher {
  private readonly options: RunUpdatesSocketOptions;
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly connections = new Set<Connection>();

  constructor(options: RunUpdatesSocketOptions) {
    this.options = options;
  }

  /** The gateway's upgrade handler for RUN_UPDATES_PATH. */
  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  };

  async publish(workspaceId: number, channel: string, update: RunUpdate): Promise<void> {
    for (const connection of this.connections) {
      if (connection.workspaceId === workspaceId) this.deliver(connection, channel, update);
    }
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.socket.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    const connection: Connection = { socket, subscriptions: new Map(), pending: Promise.resolve() };
    this.connections.add(connection);
    socket.on('close', () => this.connections.delete(connection));
    socket.on('error', () => socket.terminate());
    socket.on('message', (data, isBinary) => {
      if (isBinary) return socket.close(BAD_REQUEST.code, BAD_REQUEST.reason);
      connection.pending = connection.pending
        .then(() => this.receive(connection, data.toString()))
        .catch((error) => {
          this.options.onError?.(error);
          socket.close(BAD_REQUEST.code, BAD_REQUEST.reason);
        });
    });
  }

  /** One frame: commands as JSON lines, answered in order. */
  private async receive(connection: Connection, frame: string): Promise<void> {
    for (const line of frame.split('\n')) {
      if (line.trim() === '') continue;
      let command: Command;
      try {
        command = JSON.parse(line) as Command;
      } catch {
        return connection.socket.close(BAD_REQUEST.code, BAD_REQUEST.reason);
      }
      if (typeof command !== 'object' || command === null) {
        return connection.socket.close(BAD_REQUEST.code, BAD_REQUEST.reason);
      }
      await this.execute(connection, command);
    }
  }

  private async execute(connection: Connection, command: Command): Promise<void> {
    const { id } = command;
    // An empty command answers the server's ping; this endpoint sends none.
    if (id === undefined) return;
    const reply = (result: Record<string, unknown>) => send(connection.socket, { id, ...result });
    if (command.connect !== undefined) return this.connect(connection, command.connect, reply);
    if (connection.workspaceId === undefined) {
      return connection.socket.close(BAD_REQUEST.code, BAD_REQUEST.reason);
    }
    if (command.subscribe !== undefined) return this.subscribe(connection, command.subscribe, reply);
    if (command.unsubscribe !== undefined) {
      connection.subscriptions.delete(String((command.unsubscribe as { channel?: unknown }).channel));
      return reply({ unsubscribe: {} });
    }
    const known = [
      'publish',
      'presence',
      'presence_stats',
      'history',
      'rpc',
      'refresh',
      'sub_refresh',
      'send',
    ];
    reply({
      error: known.some((method) => command[method] !== undefined)
        ? ERRORS.notAvailable
        : ERRORS.methodNotFound,
    });
  }

  private async connect(
    connection: Connection,
    request: unknown,
    reply: (result: Record<string, unknown>) => void,
  ): Promise<void> {
    if (connection.workspaceId !== undefined) return reply({ error: ERRORS.badRequest });
    const token = (request as { token?: unknown } | null)?.token;
    if (typeof token !== 'string' || token === '') return reply({ error: ERRORS.unauthorized });
    try {
      const now = this.options.now?.() ?? Date.now();
      const claims = await this.options.invoke(() => verifyUpdatesToken(token, now));
      connection.workspaceId = claims.ws;
      connection.allowedChannel = claims.channel;
      reply({ connect: { client: randomUUID(), version: 'promptops' } });
    } catch (error) {
      if (!(error instanceof UpdatesTokenError)) throw error;
      if (error.reason === 'expired') return reply({ error: ERRORS.tokenExpired });
      connection.socket.close(INVALID_TOKEN.code, INVALID_TOKEN.reason);
    }
  }

  private async subscribe(
    connection: Connection,
    request: unknown,
    reply: (result: Record<string, unknown>) => void,
  ): Promise<void> {
    const channel = (request as { channel?: unknown } | null)?.channel;
    if (typeof channel !== 'string') return reply({ error: ERRORS.badRequest });
    if (channel !== connection.allowedChannel) return reply({ error: ERRORS.permissionDenied });
    if (connection.subscriptions.has(channel)) return reply({ error: ERRORS.alreadySubscribed });
    // Subscribed before the run is read: an update published meanwhile is not lost (and not sent twice).
    connection.subscriptions.set(channel, { sent: false });
    reply({ subscribe: {} });
    const workspaceId = connection.workspaceId as number;
    const executionId = channelExecution(channel) as number;
    const update = await this.options.invoke(() => finishedRunUpdate(workspaceId, executionId));
    if (update) this.deliver(connection, channel, update);
  }

  private deliver(connection: Connection, channel: string, update: RunUpdate): void {
    const subscription = connection.subscriptions.get(channel);
    if (!subscription || subscription.sent) return;
    subscription.sent = true;
    send(connection.socket, { push: { channel, pub: { data: update } } });
  }
}

function send(socket: WebSocket, message: unknown): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}
