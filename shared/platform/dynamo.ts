import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { ENV, requireEnv } from './config.ts';
import { withoutSdkLogger } from './sdk-clients.ts';
import type { IndexName } from './table-schema.ts';

let client: DynamoDBDocumentClient | undefined;
let clientEndpoint: string | undefined;

/** An `initialize` middleware: it sees the command's name and input before the client sends it. */
export type ClientMiddleware = (
  next: (args: { input: object }) => Promise<{ output: unknown }>,
  context: { commandName?: string },
) => (args: { input: object }) => Promise<{ output: unknown }>;

const addTo = (target: DynamoDBDocumentClient, name: string, middleware: ClientMiddleware) =>
  target.middlewareStack.add(middleware as never, { step: 'initialize', name });
const middlewares = new Map<string, ClientMiddleware>();

/**
 * Adds a middleware (at the `initialize` step, seeing each command and its input) to the document
 * client and to every client made after it; the returned function removes it. For the process that
 * owns the client: the local runtime captures the table's writes this way (its change feed).
 */
export function useDocumentClientMiddleware(name: string, middleware: ClientMiddleware): () => void {
  middlewares.set(name, middleware);
  if (client) addTo(client, name, middleware);
  return () => {
    middlewares.delete(name);
    client?.middlewareStack.remove(name);
  };
}

/**
 * The document client, created on first use so that whoever starts the process (Lambda, the local
 * runtime, a test) has set the endpoint before the client reads it. The bench adds a call counter to it.
 */
export function documentClient(): DynamoDBDocumentClient {
  // Made again when the endpoint changes: a local service restarted in the same process (tests).
  const endpoint = process.env[ENV.dynamodbEndpoint] || undefined;
  if (client && clientEndpoint !== endpoint) client = undefined;
  clientEndpoint = endpoint;
  if (!client) {
    client = DynamoDBDocumentClient.from(withoutSdkLogger(new DynamoDBClient({ endpoint })), {
      marshallOptions: { removeUndefinedValues: true },
    });
    for (const [name, middleware] of middlewares) addTo(client, name, middleware);
  }
  return client;
}

/** What every repository calls. */
export const dynamo = {
  send: ((command: Parameters<DynamoDBDocumentClient['send']>[0]) =>
    documentClient().send(command)) as DynamoDBDocumentClient['send'],
};

/**
 * The table name, read from the environment at each use (fails fast when it is missing): as the client
 * follows the endpoint, a local service started again in the same process with another table is seen.
 */
export function table(): string {
  return requireEnv(ENV.tableName);
}

/**
 * The one way to make a conditional write whose failed condition is an answer rather than a fault (the
 * item is absent, already taken, changed since it was read): the write's result (`{}` for a write that
 * answers nothing), or undefined when the condition failed (a `ConditionalCheckFailedException`); any
 * other error is thrown. So `if (!result)` reads "the condition failed". No other code catches that
 * exception.
 */
export async function unlessConditionFails<T extends object>(write: Promise<T>): Promise<T | undefined>;
export async function unlessConditionFails(write: Promise<void>): Promise<object | undefined>;
export async function unlessConditionFails(write: Promise<unknown>): Promise<object | undefined> {
  try {
    return ((await write) as object | undefined) ?? {};
  } catch (error) {
    if ((error as { name?: string } | null)?.name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

/** Every item of one partition of an index, following pages: for small partitions read whole. */
export async function queryIndexPartition(
  indexName: IndexName,
  partitionKey: string,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const pages = paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      IndexName: indexName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': `${indexName}PK` },
      ExpressionAttributeValues: { ':pk': partitionKey },
    },
  );
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
}
