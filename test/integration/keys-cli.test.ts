import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/local/service.ts';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * `npm run keys -- create --stack NAME` finds the table through the stack's TableName output. A fake
 * CloudFormation endpoint answers DescribeStacks with the local table's name.
 */
const run = promisify(execFile);
let service: TestService;
let cloudFormation: Server;
let describedStacks: string[] = [];

beforeAll(async () => {
  service = await startTestService();
  cloudFormation = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      describedStacks.push(new URLSearchParams(body).get('StackName') ?? '');
      res.writeHead(200, { 'Content-Type': 'text/xml' });
      res.end(`<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
  <DescribeStacksResult><Stacks><member>
    <StackName>promptops-test</StackName><StackStatus>CREATE_COMPLETE</StackStatus>
    <CreationTime>2024-01-01T00:00:00Z</CreationTime>
    <Outputs><member><OutputKey>TableName</OutputKey><OutputValue>${service.tableName}</OutputValue></member></Outputs>
  </member></Stacks></DescribeStacksResult>
</DescribeStacksResponse>`);
    });
  });
  await new Promise<void>((resolve) => cloudFormation.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  cloudFormation?.close();
  await service?.stop();
});

describe('npm run keys -- create --stack', () => {
  it('creates a working key in the table named by the stack output', async () => {
    describedStacks = [];
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'infra/scripts/keys.ts',
        'create',
        '--workspace',
        'from-stack',
        '--stack',
        'promptops-test',
      ],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          TABLE_NAME: '',
          DYNAMODB_ENDPOINT: service.dynamodbEndpoint,
          AWS_ENDPOINT_URL_CLOUDFORMATION: `http://127.0.0.1:${(cloudFormation.address() as AddressInfo).port}`,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'test',
          AWS_SECRET_ACCESS_KEY: 'test',
        },
      },
    );
    expect(describedStacks).toEqual(['promptops-test']);
    const key = stdout.trim().split('\n').at(-1) ?? '';
    const created = await service.call('POST', '/log-request', { key, body: logRequestBody() });
    expect(created.status).toBe(201);
  }, 60_000);
});
