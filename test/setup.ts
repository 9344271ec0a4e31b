// Run before every test file: the aws-sdk-client-mock matchers (toHaveReceivedCommandWith, ...), and a
// clean slate after it for the next file of the same worker (every project but infra and ui-modules runs
// its files one after another in workers that keep node_modules loaded: vitest.config.ts).
import 'aws-sdk-client-mock-vitest/extend';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, vi } from 'vitest';

// Keep rejected-request warnings out of the test output.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const environment = { ...process.env };
const mockedClients = [
  DynamoDBClient,
  DynamoDBDocumentClient,
  S3Client,
  SQSClient,
  EventBridgeClient,
  SecretsManagerClient,
];

afterAll(() => {
  // The environment as the file found it: a variable one file set must not configure the next.
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
  vi.useRealTimers();
  vi.unstubAllGlobals();
  // `mockClient(SomeClient)` stubs the class's `send` for every instance until restored.
  for (const client of mockedClients) {
    const send = client.prototype.send as { restore?: () => void; isSinonProxy?: boolean };
    if (send.isSinonProxy) send.restore?.();
  }
  // The project's modules are evaluated afresh for the next file (their clients, caches and settings
  // are module state); node_modules stay loaded, which is most of the import time. Not where files share
  // one local service (the e2e-shared and ui-shared projects, test/support/local-service.ts): it lives on from file to
  // file with the modules it loaded, and a handler it loads later must import those same modules, or it
  // gets a document client of its own without the change feed's capture (its writes never reach the
  // rollups) and caches apart from the other handlers'.
  if (process.env.PROMPTOPS_TEST_SERVICE !== 'shared') vi.resetModules();
});
