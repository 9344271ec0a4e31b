import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { REPO_ROOT } from '../local/service.ts';
import { tenKilobyteLog } from './log-request.ts';
import { type BenchRow, fmt } from './support.ts';

/**
 * Local end-to-end throughput of POST /log-request through the gateway (authorizer cached, handler,
 * dynalite), beside dynalite's raw PutItem rate for items of the same size, measured in the same run
 * with the same concurrency. The service runs as `npm start` does, in its own process.
 */
// Enough requests in flight to keep dynalite busy through the gateway's extra hop, for both paths alike.
const CONCURRENCY = 32;
const SECONDS = 3;
const ROUNDS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

interface RunningService {
  baseUrl: string;
  dynamodbEndpoint: string;
  tableName: string;
  apiKey: string;
  child: ChildProcess;
}

async function startService(dataDir: string): Promise<RunningService> {
  const child = spawn(process.execPath, ['infra/local/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', PROMPTOPS_DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'ERROR' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`local service exited with ${code}: ${out}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const key = /API key \(X-API-KEY\):\n(\S+)/.exec(out)?.[1];
      if (!key) return;
      resolve({
        baseUrl: /listening on (\S+)/.exec(out)?.[1] ?? '',
        dynamodbEndpoint: /DynamoDB\s+(\S+)/.exec(out)?.[1] ?? '',
        tableName: /\(table (\S+)\)/.exec(out)?.[1] ?? '',
        apiKey: key,
        child,
      });
    });
  });
}

/** Runs `task` from CONCURRENCY loops for SECONDS; answers completed tasks per second. */
async function rate(task: (i: number) => Promise<void>): Promise<number> {
  const deadline = Date.now() + SECONDS * 1000;
  let done = 0;
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        await task(next++);
        done++;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

export async function benchThroughput(): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'promptops-bench-'));
  const service = await startService(dataDir);
  try {
    const bodies = Array.from({ length: 64 }, (_, i) => tenKilobyteLog(i));
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const url = new URL('/log-request', service.baseUrl);
    const post = (body: string) =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          url,
          {
            method: 'POST',
            agent,
            headers: { 'Content-Type': 'application/json', 'X-API-KEY': service.apiKey },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 201 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      });

    const dynamo = new DynamoDBClient({
      endpoint: service.dynamodbEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      requestHandler: new NodeHttpHandler({
        httpAgent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }),
      }),
    });
    let nextRawId = 10_000_000; // unique across rounds: every put is a new item, as every log is
    const putRaw = async (i: number) => {
      const id = nextRawId++;
      const sort = `${String(1_705_314_600_000 + i).padStart(15, '0')}#${String(id).padStart(16, '0')}`;
      await dynamo.send(
        new PutItemCommand({
          TableName: service.tableName,
          Item: {
            PK: { S: `W#999#RL#${id}` },
            SK: { S: 'RL' },
            GSI1PK: { S: `W#999#RLT#${id % 4}` },
            GSI1SK: { S: sort },
            doc: { S: bodies[i % bodies.length] ?? '' },
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    };

    await rate(async (i) => post(bodies[i % bodies.length] ?? '')); // warm both paths up
    // Alternate the two measurements and keep the median of each: one window of each, one after the
    // other, swings with whatever else the two cores are doing.
    const raws: number[] = [];
    const e2es: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      raws.push(await rate(putRaw));
      e2es.push(await rate(async (i) => post(bodies[i % bodies.length] ?? '')));
    }
    const raw = median(raws);
    const e2e = median(e2es);
    agent.destroy();
    return [
      {
        name: `dynalite raw PutItem (10 KB items), median of ${ROUNDS} rounds`,
        value: `${fmt(raw, 0)} /s`,
        target: '',
      },
      {
        name: 'POST /log-request through the local gateway',
        value: `${fmt(e2e, 0)} /s (${fmt((100 * e2e) / raw, 0)}% of raw)`,
        target: '>= 70% of raw PutItem',
      },
    ];
  } finally {
    service.child.kill('SIGTERM');
    await new Promise((resolve) => service.child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
