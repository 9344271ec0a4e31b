import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as getRequestHandler } from '#functions/http/get-request.ts';
import { handler as logRequestHandler } from '#functions/http/log-request.ts';
import { resetOverrideCache } from '#shared/costs/overrides.ts';
import { FULL_ACCESS, toAuthorizerContext } from '#shared/platform/auth-context.ts';
import { validate } from '#shared/platform/http.ts';
import { ID_BLOCK_SIZE, resetIdBlocks } from '#shared/platform/ids.ts';
import { logger } from '#shared/platform/logger.ts';
import { logRequest } from '#shared/request-logs/log-request.ts';
import { ERROR_TYPE_STATUSES, logRequestBodySchema } from '#shared/request-logs/log-request-schema.ts';
import type { RequestLogRecord } from '#shared/request-logs/record.ts';
import { INDEX_SHARDS, ITEM_DOC_LIMIT_BYTES, timeSortKey } from '#shared/request-logs/repository.ts';
import { logRequestBody } from '#test/support/local-service.ts';

/**
 * POST /log-request with the table and bucket mocked: what is written (and how many calls it takes),
 * where an oversized log goes, and every validation rule of POST /log-request with its status.
 */
process.env.TABLE_NAME = 'promptops-unit';
process.env.BUCKET_NAME = 'promptops-unit-bucket';
process.env.AWS_REGION ??= 'us-east-1';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);

const WS = 7;
const START_MS = Date.parse('2024-01-15T10:30:00Z');
const END_MS = Date.parse('2024-01-15T10:30:05Z');

let counterLast = 0;

beforeEach(() => {
  ddb.reset();
  s3.reset();
  resetIdBlocks();
  counterLast = 0;
  ddb.on(UpdateCommand).callsFake(() => {
    counterLast += ID_BLOCK_SIZE;
    return { Attributes: { last: counterLast } };
  });
  ddb.on(PutCommand).resolves({});
  // The workspace's model price overrides (none), read through their cache by the first log that is priced.
  ddb.on(QueryCommand).resolves({ Items: [] });
  resetOverrideCache();
  s3.on(PutObjectCommand).resolves({});
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Validates like the route does, then logs with the body as sent as the raw fields. */
async function log(body: Record<string, unknown>, workspaceId = WS) {
  const parsed = validate(logRequestBodySchema, body, 'body');
  return logRequest(workspaceId, parsed, body);
}

/** The table as the prompt lookup of a log naming a template reads it: id pointer, head and version. */
function mockPromptTemplate(id: number, name: string, versionNumber: number) {
  const head = { PK: `W#${WS}#P#${name}`, SK: '~HEAD', id, name, tags: [], labels: {} };
  const version = {
    PK: `W#${WS}#P#${name}`,
    SK: `V#${String(versionNumber).padStart(10, '0')}`,
    doc: JSON.stringify({
      id: 100 + versionNumber,
      prompt_id: id,
      prompt_name: name,
      number: versionNumber,
      prompt_template: { type: 'completion', content: [] },
      metadata: null,
      commit_message: null,
      created_at: 0,
    }),
  };
  ddb.on(GetCommand, { Key: { PK: `W#${WS}#PID#${id}`, SK: 'PID' } }).resolves({ Item: { name } });
  ddb.on(QueryCommand).resolves({ Items: [head, version] });
  ddb.on(BatchGetCommand).resolves({ Responses: { 'promptops-unit': [head, version] } });
}

function putItems(): Record<string, unknown>[] {
  return ddb.commandCalls(PutCommand).map((call) => call.args[0].input.Item as Record<string, unknown>);
}
function storedRecord(index = 0): RequestLogRecord {
  const item = putItems()[index];
  if (!item) throw new Error(`no PutItem #${index}`);
  const json = typeof item.doc === 'string' ? item.doc : (s3Body(item.docKey as string) as string);
  return JSON.parse(json) as RequestLogRecord;
}
function s3Body(key: string): unknown {
  return s3.commandCalls(PutObjectCommand).find((call) => call.args[0].input.Key === key)?.args[0].input.Body;
}

/** A chat input whose one text is `size` characters of `fill`. */
const bigInput = (size: number, fill = 'a') => ({
  type: 'chat',
  messages: [{ role: 'user', content: [{ type: 'text', text: fill.repeat(size) }] }],
});

const context = { awsRequestId: 'req-unit' } as Context;

function postEvent(body: unknown): APIGatewayProxyEvent {
  return {
    resource: '/log-request',
    path: '/log-request',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      authorizer: toAuthorizerContext({
        workspaceId: WS,
        userId: 1,
        userEmail: null,
        permissions: FULL_ACCESS,
      }),
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

/** POST /log-request through its real handler; the answer with the parsed body. */
async function post(body: unknown) {
  const result = await logRequestHandler(postEvent(body), context);
  return { status: result.statusCode, body: JSON.parse(result.body) };
}

async function expect422(body: Record<string, unknown>, loc: (string | number)[]) {
  const answer = await post(body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(422);
  expect(answer.body).toMatchObject({ success: false, error: 'validation_error' });
  expect(answer.body.detail).toEqual(
    expect.arrayContaining([{ loc: ['body', ...loc], msg: expect.any(String), type: expect.any(String) }]),
  );
  // Nothing stored for a rejected log.
  expect(ddb).not.toHaveReceivedCommand(PutCommand);
  expect(s3).not.toHaveReceivedCommand(PutObjectCommand);
  return answer;
}

async function expect201(body: Record<string, unknown>) {
  const answer = await post(body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer;
}

describe('logging a request: what is written', () => {
  it('writes one item per log and reserves an id block only on the first log of the block', async () => {
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await log(logRequestBody()));

    expect(results.map((result) => result.id)).toEqual([1, 2, 3]);
    expect(ddb).toHaveReceivedCommandTimes(PutCommand, 3);
    expect(ddb).toHaveReceivedCommandTimes(UpdateCommand, 1);
    // The price overrides are read once, then served from the container's cache.
    expect(ddb).toHaveReceivedCommandTimes(QueryCommand, 1);
    expect(ddb.calls()).toHaveLength(5);
    expect(s3.calls()).toHaveLength(0);
  });

  it('reserves the next block once the current one is used up', async () => {
    const ids: number[] = [];
    for (let i = 0; i < ID_BLOCK_SIZE + 1; i++) ids.push((await log(logRequestBody())).id);

    expect(ids.at(-1)).toBe(ID_BLOCK_SIZE + 1);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ddb).toHaveReceivedCommandTimes(UpdateCommand, 2);
    expect(ddb).toHaveReceivedCommandTimes(PutCommand, ID_BLOCK_SIZE + 1);
  });

  it('answers the id, a null prompt_version and the status fields', async () => {
    const ok = await log(logRequestBody());
    const warned = await log(
      logRequestBody({ status: 'WARNING', error_type: 'PROVIDER_RATE_LIMIT', error_message: 'slow down' }),
    );

    expect(ok).toEqual({
      id: 1,
      prompt_version: null,
      status: 'SUCCESS',
      error_type: null,
      error_message: null,
    });
    expect(warned).toEqual({
      id: 2,
      prompt_version: null,
      status: 'WARNING',
      error_type: 'PROVIDER_RATE_LIMIT',
      error_message: 'slow down',
    });
  });

  it('keys the item by workspace and id and gives it the time-ordered index keys', async () => {
    await log(logRequestBody());

    const [item] = putItems();
    expect(item).toMatchObject({
      PK: `W#${WS}#RL#1`,
      SK: 'RL',
      // Log 1 is in shard 1 of the time index (id modulo the shard count).
      GSI1PK: `W#${WS}#RLT#1`,
      GSI1SK: timeSortKey(START_MS, 1),
    });
    // A SUCCESS log without a prompt is in neither sparse index.
    expect(item).not.toHaveProperty('GSI2PK');
    expect(item).not.toHaveProperty('GSI3PK');
    // Never overwrites an existing log.
    expect(ddb).toHaveReceivedCommandWith(PutCommand, {
      TableName: 'promptops-unit',
      ConditionExpression: 'attribute_not_exists(PK)',
    });
  });

  it('puts a log that names a prompt and failed into the prompt and status indexes', async () => {
    mockPromptTemplate(12, 'p12', 1);
    await log(logRequestBody({ prompt_id: 12, status: 'ERROR', error_type: 'PROVIDER_TIMEOUT' }));

    expect(putItems()[0]).toMatchObject({
      GSI2PK: `W#${WS}#RLP#12#1`,
      GSI2SK: timeSortKey(START_MS, 1),
      GSI3PK: `W#${WS}#RLS#ERROR`,
      GSI3SK: timeSortKey(START_MS, 1),
    });
  });

  it('scopes the keys to the workspace of the caller', async () => {
    await log(logRequestBody(), 99);

    expect(putItems()[0]).toMatchObject({ PK: 'W#99#RL#1', GSI1PK: 'W#99#RLT#1' });
    expect(storedRecord().workspace_id).toBe(99);
  });

  it('stores the whole log as JSON in the item, blueprints exactly as sent', async () => {
    const body = logRequestBody({
      input: {
        type: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.', custom_field: { z: 1, a: 2 } }] },
          { role: 'user', content: [{ type: 'text', text: 'Grüße 👋' }] },
        ],
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      },
      parameters: { temperature: 0.2, response_format: { json_schema: { name: 'x', schema: {} } } },
      tags: ['prod'],
      metadata: { env: 'prod' },
      prompt_name: 'greeter',
      prompt_id: 5,
      prompt_version_number: 2,
      prompt_input_variables: { name: 'Ada' },
      input_tokens: 10,
      output_tokens: 20,
      price: 0.0012,
      score: 80,
      api_type: 'chat-completions',
      function_name: 'openai.chat.completions.create',
    });
    mockPromptTemplate(5, 'greeter', 2);

    await log(body);

    const item = putItems()[0]!;
    expect(typeof item.doc).toBe('string');
    expect(item).not.toHaveProperty('docKey');
    const record = storedRecord();
    expect(JSON.stringify(record.input)).toBe(JSON.stringify(body.input));
    expect(JSON.stringify(record.output)).toBe(JSON.stringify(body.output));
    expect(JSON.stringify(record.parameters)).toBe(JSON.stringify(body.parameters));
    expect(record).toMatchObject({
      id: 1,
      workspace_id: WS,
      provider: 'openai',
      model: 'gpt-4o',
      tags: ['prod'],
      metadata: { env: 'prod' },
      prompt_name: 'greeter',
      prompt_id: 5,
      prompt_version_number: 2,
      prompt_input_variables: { name: 'Ada' },
      input_tokens: 10,
      output_tokens: 20,
      price: 0.0012,
      score: 80,
      api_type: 'chat-completions',
      function_name: 'openai.chat.completions.create',
      status: 'SUCCESS',
      error_type: null,
      error_message: null,
      request_start_time: START_MS,
      request_end_time: END_MS,
    });
  });

  it('stores the defaults of every optional field', async () => {
    await log(logRequestBody());

    expect(storedRecord()).toMatchObject({
      tags: [],
      metadata: {},
      parameters: {},
      prompt_input_variables: {},
      prompt_id: null,
      prompt_name: null,
      prompt_version_number: null,
      input_tokens: 0,
      output_tokens: 0,
      price: 0,
      score: 0,
      status: 'SUCCESS',
      function_name: '',
      api_type: null,
      error_type: null,
      error_message: null,
    });
  });

  it('treats explicit nulls of optional fields as not given', async () => {
    await log(
      logRequestBody({
        tags: null,
        metadata: null,
        parameters: null,
        input_tokens: null,
        output_tokens: null,
        price: null,
        score: null,
        status: null,
        function_name: null,
        error_type: null,
        error_message: null,
      }),
    );

    expect(storedRecord()).toMatchObject({
      tags: [],
      metadata: {},
      parameters: {},
      input_tokens: 0,
      output_tokens: 0,
      price: 0,
      score: 0,
      status: 'SUCCESS',
      function_name: '',
    });
  });
});

describe('logging a request: oversized logs go to S3', () => {
  it('writes a log over the item limit to S3 first and keeps only the pointer in the item', async () => {
    const body = logRequestBody({ input: bigInput(ITEM_DOC_LIMIT_BYTES + 10) });

    const result = await log(body);

    expect(s3).toHaveReceivedCommandTimes(PutObjectCommand, 1);
    const key = `request-logs/${WS}/${result.id}.json`;
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, { Bucket: 'promptops-unit-bucket', Key: key });
    const item = putItems()[0]!;
    expect(item.docKey).toBe(key);
    expect(item).not.toHaveProperty('doc');
    expect(item).toMatchObject({
      PK: `W#${WS}#RL#${result.id}`,
      GSI1PK: `W#${WS}#RLT#${result.id % INDEX_SHARDS}`,
    });
    expect(JSON.stringify(storedRecord().input)).toBe(JSON.stringify(body.input));
    expect(ddb).toHaveReceivedCommandTimes(PutCommand, 1);
  });

  it('writes no item when the S3 write fails, so no log points at a missing object', async () => {
    s3.on(PutObjectCommand).rejects(new Error('S3 unavailable'));

    await expect(log(logRequestBody({ input: bigInput(ITEM_DOC_LIMIT_BYTES + 10) }))).rejects.toThrow();

    expect(ddb).not.toHaveReceivedCommand(PutCommand);
  });

  it('keeps a log of exactly the limit in the item and moves one byte more to S3', async () => {
    // Measure the JSON of a log, then size the text so the next one is exactly at the limit.
    await log(logRequestBody({ input: bigInput(1000) }));
    const measured = Buffer.byteLength(putItems()[0]!.doc as string, 'utf8');
    const atLimit = 1000 + (ITEM_DOC_LIMIT_BYTES - measured);

    await log(logRequestBody({ input: bigInput(atLimit) }));
    await log(logRequestBody({ input: bigInput(atLimit + 1) }));

    const [, exact, over] = putItems();
    expect(Buffer.byteLength(exact!.doc as string, 'utf8')).toBe(ITEM_DOC_LIMIT_BYTES);
    expect(exact).not.toHaveProperty('docKey');
    expect(over!.docKey).toBe(`request-logs/${WS}/3.json`);
    expect(Buffer.byteLength(s3Body(over!.docKey as string) as string, 'utf8')).toBe(
      ITEM_DOC_LIMIT_BYTES + 1,
    );
    expect(s3).toHaveReceivedCommandTimes(PutObjectCommand, 1);
  });

  it('measures the limit in bytes, not characters', async () => {
    // 2-byte characters: well under the limit in characters, over it in UTF-8 bytes.
    const body = logRequestBody({ input: bigInput(Math.ceil(ITEM_DOC_LIMIT_BYTES / 2) + 10, 'é') });

    await log(body);

    expect(s3).toHaveReceivedCommandTimes(PutObjectCommand, 1);
    expect(putItems()[0]).not.toHaveProperty('doc');
    expect(JSON.stringify(storedRecord().input)).toBe(JSON.stringify(body.input));
  });
});

describe('POST /log-request: error_type and status (the error_type table)', () => {
  const STATUSES = ['SUCCESS', 'WARNING', 'ERROR'] as const;
  const DOCUMENTED_TABLE: Record<string, readonly string[]> = {
    PROVIDER_RATE_LIMIT: ['WARNING', 'ERROR'],
    PROVIDER_QUOTA_LIMIT: ['WARNING', 'ERROR'],
    PROVIDER_PARTIAL_RESPONSE: ['WARNING'],
    VARIABLE_MISSING_OR_EMPTY: ['WARNING'],
    PROVIDER_TIMEOUT: ['ERROR'],
    PROVIDER_AUTH_ERROR: ['ERROR'],
    PROVIDER_ERROR: ['ERROR'],
    TEMPLATE_RENDER_ERROR: ['ERROR'],
    UNKNOWN_ERROR: ['WARNING', 'ERROR'],
  };
  const combinations = Object.entries(DOCUMENTED_TABLE).flatMap(([errorType, allowed]) =>
    STATUSES.map((status) => ({ errorType, status, allowed: allowed.includes(status) })),
  );

  it('knows exactly the documented error types', () => {
    expect(Object.keys(ERROR_TYPE_STATUSES).sort()).toEqual(Object.keys(DOCUMENTED_TABLE).sort());
  });

  it.each(combinations.filter((c) => c.allowed))(
    'accepts error_type $errorType with status $status',
    async ({ errorType, status }) => {
      const answer = await expect201(
        logRequestBody({ status, error_type: errorType, error_message: 'provider said no' }),
      );

      expect(answer.body).toMatchObject({ status, error_type: errorType, error_message: 'provider said no' });
      expect(storedRecord()).toMatchObject({ status, error_type: errorType });
    },
  );

  it.each(combinations.filter((c) => !c.allowed))(
    'answers 422 at error_type for $errorType with status $status',
    async ({ errorType, status }) => {
      await expect422(logRequestBody({ status, error_type: errorType }), ['error_type']);
    },
  );

  it('answers 422 at error_type when error_type is given with the default status SUCCESS', async () => {
    await expect422(logRequestBody({ error_type: 'UNKNOWN_ERROR' }), ['error_type']);
  });

  it('answers 422 at error_message when error_message is given with status SUCCESS', async () => {
    await expect422(logRequestBody({ error_message: 'it broke' }), ['error_message']);
    await expect422(logRequestBody({ status: 'SUCCESS', error_message: '' }), ['error_message']);
  });

  it.each([['WARNING'], ['ERROR']])('accepts status %s without an error_type', async (status) => {
    const answer = await expect201(logRequestBody({ status }));

    expect(answer.body).toMatchObject({ status, error_type: null, error_message: null });
  });

  it('answers 422 at error_type for an undocumented error type', async () => {
    await expect422(logRequestBody({ status: 'ERROR', error_type: 'NETWORK_GLITCH' }), ['error_type']);
  });

  it.each([['OK'], ['FAILED'], ['success'], [1]])('answers 422 at status for %j', async (status) => {
    await expect422(logRequestBody({ status }), ['status']);
  });

  it('accepts an error_message of 1024 characters and answers 422 for 1025', async () => {
    await expect201(logRequestBody({ status: 'ERROR', error_message: 'e'.repeat(1024) }));
    ddb.resetHistory();
    await expect422(logRequestBody({ status: 'ERROR', error_message: 'e'.repeat(1025) }), ['error_message']);
  });
});

describe('POST /log-request: timestamps', () => {
  it.each([
    ['ISO with Z', '2024-01-15T10:30:00Z', '2024-01-15T10:30:00.000Z'],
    ['ISO with an offset', '2024-01-15T12:30:00+02:00', '2024-01-15T10:30:00.000Z'],
    ['Python isoformat with microseconds', '2024-01-15T10:30:00.123456+00:00', '2024-01-15T10:30:00.123Z'],
    ['ISO without a zone (UTC)', '2024-01-15T10:30:00', '2024-01-15T10:30:00.000Z'],
    ['epoch seconds', 1705314600, '2024-01-15T10:30:00.000Z'],
    ['epoch seconds with a fraction', 1705314600.25, '2024-01-15T10:30:00.250Z'],
    ['epoch milliseconds (Date.now())', 1705314600250, '2024-01-15T10:30:00.250Z'],
  ])('accepts request_start_time as %s', async (_what, start, expected) => {
    await expect201(logRequestBody({ request_start_time: start, request_end_time: '2024-01-15T11:00:00Z' }));

    expect(new Date(storedRecord().request_start_time).toISOString()).toBe(expected);
  });

  it.each([
    ['a word', 'yesterday'],
    ['an empty string', ''],
    ['month 13', '2024-13-01T00:00:00Z'],
    ['hour 25', '2024-01-15T25:00:00Z'],
    ['a boolean', true],
    ['an object', { seconds: 1 }],
    ['negative epoch seconds', -5],
    ['a number past the year 9999', 1e16],
  ])('answers 422 at request_start_time for %s', async (_what, start) => {
    await expect422(logRequestBody({ request_start_time: start }), ['request_start_time']);
  });

  it.each([
    ['February 30th', '2024-02-30T00:00:00Z'],
    ['February 29th of a common year', '2023-02-29T10:00:00Z'],
    ['April 31st', '2024-04-31T10:00:00Z'],
  ])('answers 422 for %s instead of moving it to another day', async (_what, end) => {
    await expect422(logRequestBody({ request_start_time: '2023-01-01T00:00:00Z', request_end_time: end }), [
      'request_end_time',
    ]);
  });

  it('answers 422 at request_end_time when the request ended before it started', async () => {
    await expect422(
      logRequestBody({
        request_start_time: '2024-01-15T10:30:05Z',
        request_end_time: '2024-01-15T10:30:04Z',
      }),
      ['request_end_time'],
    );
    await expect422(logRequestBody({ request_start_time: 1705314605, request_end_time: 1705314604.999 }), [
      'request_end_time',
    ]);
  });

  it('accepts a request that ended the instant it started', async () => {
    await expect201(logRequestBody({ request_end_time: '2024-01-15T10:30:00Z' }));
  });
});

describe('POST /log-request: field bounds', () => {
  it('accepts a tag of 512 characters and answers 422 at the tag for 513', async () => {
    await expect201(logRequestBody({ tags: ['t'.repeat(512)] }));
    ddb.resetHistory();
    await expect422(logRequestBody({ tags: ['ok', 't'.repeat(513)] }), ['tags', 1]);
  });

  it('answers 422 at tags for a tag that is not a string', async () => {
    await expect422(logRequestBody({ tags: [5] }), ['tags', 0]);
    await expect422(logRequestBody({ tags: 'prod' }), ['tags']);
  });

  it('accepts a metadata key of 1024 characters and answers 422 at the key for 1025', async () => {
    await expect201(logRequestBody({ metadata: { ['k'.repeat(1024)]: 'v' } }));
    ddb.resetHistory();
    const key = 'k'.repeat(1025);
    await expect422(logRequestBody({ metadata: { [key]: 'v' } }), ['metadata', key]);
  });

  it('says why a metadata key is rejected', async () => {
    const answer = await expect422(logRequestBody({ metadata: { ['k'.repeat(1025)]: 'v' } }), [
      'metadata',
      'k'.repeat(1025),
    ]);

    expect(answer.body.detail[0].msg).toMatch(/1024/);
  });

  it.each([
    ['a number', 1],
    ['a boolean', true],
    ['an object', { a: 'b' }],
    ['null', null],
  ])('answers 422 at the metadata key for a value that is %s', async (_what, value) => {
    await expect422(logRequestBody({ metadata: { env: 'prod', plan: value } }), ['metadata', 'plan']);
  });

  it.each([
    ['101', 101],
    ['-1', -1],
    ['1.5', 1.5],
    ['a string', '50'],
  ])('answers 422 at score for %s', async (_what, score) => {
    await expect422(logRequestBody({ score }), ['score']);
  });

  it.each([[0], [100]])('accepts score %i', async (score) => {
    await expect201(logRequestBody({ score }));
    expect(storedRecord().score).toBe(score);
  });

  it.each([
    ['input_tokens', -1],
    ['output_tokens', -1],
    ['input_tokens', 1.5],
    ['output_tokens', '10'],
    ['price', -0.01],
    ['price', 'free'],
  ])('answers 422 at %s for %j', async (field, value) => {
    await expect422(logRequestBody({ [field]: value }), [field]);
  });

  it.each([
    [0, 422],
    [-1, 422],
    [1.5, 422],
    [1, 201],
  ])('answers %i for prompt_version_number %j', async (version, status) => {
    if (status === 422)
      await expect422(logRequestBody({ prompt_version_number: version }), ['prompt_version_number']);
    else await expect201(logRequestBody({ prompt_version_number: version }));
  });

  it.each([
    ['provider', 42],
    ['provider', ''],
    ['model', ['gpt-4o']],
    ['model', ''],
    ['parameters', 'temperature=0'],
    ['prompt_input_variables', [1]],
    ['prompt_id', 'abc'],
    ['function_name', 3],
  ])('answers 422 at %s for %j', async (field, value) => {
    await expect422(logRequestBody({ [field]: value }), [field]);
  });
});

describe('POST /log-request: blueprints', () => {
  it('answers 422 at the content when a message content is a plain string', async () => {
    await expect422(
      logRequestBody({ input: { type: 'chat', messages: [{ role: 'user', content: 'Hello!' }] } }),
      ['input', 'messages', 0, 'content'],
    );
  });

  it('answers 422 at the content when a completion content is a plain string', async () => {
    await expect422(logRequestBody({ output: { type: 'completion', content: 'Hi there' } }), [
      'output',
      'content',
    ]);
  });

  it('answers 422 at the role for a role that is not known', async () => {
    await expect422(
      logRequestBody({ input: { type: 'chat', messages: [{ role: 'wizard', content: [] }] } }),
      ['input', 'messages', 0, 'role'],
    );
  });

  it('answers 422 at input for a blueprint type that is not chat or completion', async () => {
    await expect422(logRequestBody({ input: { type: 'image', content: [] } }), ['input', 'type']);
  });

  it('accepts a completion blueprint and an assistant turn with tool calls only', async () => {
    await expect201(
      logRequestBody({
        input: { type: 'completion', content: [{ type: 'text', text: 'Once upon a time' }] },
        output: {
          type: 'chat',
          messages: [{ role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: {} }] }],
        },
      }),
    );
  });

  it.each([['provider'], ['model'], ['input'], ['output'], ['request_start_time'], ['request_end_time']])(
    'answers 422 "Field required" at %s when it is missing',
    async (field) => {
      const body = logRequestBody();
      delete body[field];

      const answer = await expect422(body, [field]);

      expect(answer.body.detail).toContainEqual({
        loc: ['body', field],
        msg: 'Field required',
        type: expect.any(String),
      });
    },
  );
});

describe('GET /api/public/v2/requests/{id}', () => {
  function getEvent(id: string, workspaceId = WS): APIGatewayProxyEvent {
    return {
      ...postEvent(''),
      httpMethod: 'GET',
      body: null,
      headers: {},
      pathParameters: { request_id: id },
      requestContext: {
        authorizer: toAuthorizerContext({
          workspaceId,
          userId: 1,
          userEmail: null,
          permissions: { request_logs: 'read' },
        }),
      } as unknown as APIGatewayProxyEvent['requestContext'],
    };
  }

  async function get(id: string, workspaceId = WS) {
    const result = await getRequestHandler(getEvent(id, workspaceId), context);
    return { status: result.statusCode, body: JSON.parse(result.body) };
  }

  it('returns the stored log with ISO times, latency and the blueprints as sent', async () => {
    const body = logRequestBody({ tags: ['a'], metadata: { k: 'v' }, input_tokens: 3, output_tokens: 4 });
    await log(body);
    const item = putItems()[0]!;
    ddb.on(GetCommand, { Key: { PK: `W#${WS}#RL#1`, SK: 'RL' } }).resolves({ Item: item });

    const answer = await get('1');

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      success: true,
      id: 1,
      request_id: 1,
      provider: 'openai',
      model: 'gpt-4o',
      input: body.input,
      output: body.output,
      tags: ['a'],
      metadata: { k: 'v' },
      tokens: 7,
      status: 'SUCCESS',
      request_start_time: '2024-01-15T10:30:00.000Z',
      request_end_time: '2024-01-15T10:30:05.000Z',
      latency_ms: 5000,
    });
  });

  it('reads a log kept in S3 from its object', async () => {
    const body = logRequestBody({ input: bigInput(ITEM_DOC_LIMIT_BYTES + 1) });
    await log(body);
    const item = putItems()[0]!;
    const doc = s3Body(item.docKey as string) as string;
    ddb.on(GetCommand).resolves({ Item: item });
    s3.on(GetObjectCommand, { Key: item.docKey as string }).resolves({
      Body: { transformToString: async () => doc } as never,
    });

    const answer = await get('1');

    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body.input)).toBe(JSON.stringify(body.input));
  });

  it('answers 404 for an id the workspace does not have, looking only in its own keys', async () => {
    ddb.on(GetCommand).resolves({});

    const answer = await get('5', 8);

    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ success: false, error: 'not_found' });
    expect(ddb).toHaveReceivedCommandWith(GetCommand, { Key: { PK: 'W#8#RL#5', SK: 'RL' } });
  });

  it.each([['abc'], ['0'], ['1e3']])('answers 422 at the path for id %j', async (id) => {
    const answer = await get(id);

    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['path', 'request_id']);
  });
});

describe('usage: subsets of the token totals', () => {
  it('stores the usage and the cost computed from it', async () => {
    await expect201(
      logRequestBody({
        input_tokens: 1_000_000,
        output_tokens: 1_000_000,
        usage: { cache_read_tokens: 500_000 },
      }),
    );
    const record = storedRecord();
    expect(record.usage).toEqual({
      input_tokens: 1_000_000,
      output_tokens: 1_000_000,
      cache_read_tokens: 500_000,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
    });
    expect(record.price).toBe(11.875);
    expect(record.cost).toMatchObject({ total: 11.875, priced_as: 'gpt-4o' });
  });

  it('answers 422 at the cache reads when they and the cache writes are more than the input', async () => {
    const answer = await expect422(
      logRequestBody({ input_tokens: 100, usage: { cache_read_tokens: 80, cache_write_tokens: 30 } }),
      ['usage', 'cache_write_tokens'],
    );
    expect(answer.body.detail[0].msg).toContain('is more than input_tokens (100)');
    await expect422(logRequestBody({ input_tokens: 10, usage: { cache_read_tokens: 11 } }), [
      'usage',
      'cache_read_tokens',
    ]);
  });

  it('answers 422 at the reasoning tokens when they are more than the output', async () => {
    await expect422(logRequestBody({ output_tokens: 5, usage: { reasoning_tokens: 6 } }), [
      'usage',
      'reasoning_tokens',
    ]);
  });

  it('answers 422 for a negative or fractional subset', async () => {
    await expect422(logRequestBody({ input_tokens: 10, usage: { cache_read_tokens: -1 } }), [
      'usage',
      'cache_read_tokens',
    ]);
    await expect422(logRequestBody({ output_tokens: 10, usage: { reasoning_tokens: 1.5 } }), [
      'usage',
      'reasoning_tokens',
    ]);
  });
});
