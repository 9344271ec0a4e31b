import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, PutBucketCorsCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { BROWSER_UPLOAD_CORS } from '#shared/platform/blob-store.ts';
import { TABLE_INDEXES, TABLE_KEYS } from '#shared/platform/table-schema.ts';

/**
 * The embedded emulators of the local runtime: dynalite (DynamoDB) and s3rver (S3), persisted under a
 * data directory or in memory. An external emulator given by endpoint is used instead, and the table
 * and bucket are created there when missing.
 */
export interface Emulator {
  endpoint: string;
  stop(): Promise<void>;
}

export async function startDynalite(path: string | undefined): Promise<Emulator> {
  if (path) mkdirSync(path, { recursive: true });
  const child: ChildProcess = fork(fileURLToPath(new URL('./dynalite-server.mjs', import.meta.url)), [], {
    env: { ...process.env, DYNALITE_PATH: path ?? '' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`dynalite exited with code ${code}`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function startS3rver(directory: string, bucket: string): Promise<Emulator> {
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = (await server.run()) as { port: number };
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => server.close() };
}

/** Creates the single table (keys and indexes from the shared table schema) unless it exists. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  const attributes = new Set<string>([TABLE_KEYS.partition, TABLE_KEYS.sort]);
  for (const index of TABLE_INDEXES) attributes.add(index.partition).add(index.sort);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE_KEYS.partition, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sort, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE_INDEXES.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partition, KeyType: 'HASH' },
            { AttributeName: index.sort, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ResourceInUseException') throw error;
  }
  // dynalite reports ACTIVE at once (createTableMs 0); an external emulator may take a moment.
  for (let attempt = 0; attempt < 50; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Table ${tableName} did not become ACTIVE`);
}

export async function ensureBucket(endpoint: string, bucket: string): Promise<void> {
  const client = new S3Client({ endpoint, forcePathStyle: true });
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  }
}

/**
 * The bucket's CORS rule as the stack sets it (DataStore.allowBrowserUploads): pages of these origins
 * (the local gateway's) may PUT files to presigned URLs. Replaces the rule of the last start, whose
 * gateway may have had another port.
 */
export async function allowBrowserUploads(
  endpoint: string,
  bucket: string,
  origins: string[],
): Promise<void> {
  const client = new S3Client({ endpoint, forcePathStyle: true });
  await client.send(
    new PutBucketCorsCommand({
      Bucket: bucket,
      CORSConfiguration: {
        CORSRules: [
          {
            AllowedOrigins: origins,
            AllowedMethods: [...BROWSER_UPLOAD_CORS.methods],
            AllowedHeaders: [...BROWSER_UPLOAD_CORS.headers],
            MaxAgeSeconds: BROWSER_UPLOAD_CORS.maxAgeSeconds,
          },
        ],
      },
    }),
  );
}
