import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

/**
 * The request-log data layer against the real emulators of the local runtime (dynalite and s3rver):
 * id allocation under concurrency, the S3 overflow of large logs and its threshold, and lossless
 * round trips. The domain functions are called directly once the service has set the environment;
 * logs are read back through GET /api/public/v2/requests/{id}.
 */
let service: TestService;
let platform: {
  ids: typeof import('#shared/platform/ids.ts');
  dynamo: typeof import('#shared/platform/dynamo.ts');
  http: typeof import('#shared/platform/http.ts');
  schema: typeof import('#shared/request-logs/log-request-schema.ts');
  domain: typeof import('#shared/request-logs/log-request.ts');
  repository: typeof import('#shared/request-logs/repository.ts');
};

beforeAll(async () => {
  service = await startTestService();
  platform = {
    ids: await import('#shared/platform/ids.ts'),
    dynamo: await import('#shared/platform/dynamo.ts'),
    http: await import('#shared/platform/http.ts'),
    schema: await import('#shared/request-logs/log-request-schema.ts'),
    domain: await import('#shared/request-logs/log-request.ts'),
    repository: await import('#shared/request-logs/repository.ts'),
  };
});
afterAll(() => service?.stop());

type RequestLogRecord = import('#shared/request-logs/record.ts').RequestLogRecord;

/** Logs through the domain exactly as the route does: validated body plus the body as sent. */
async function logDirect(body: Record<string, unknown>) {
  const parsed = platform.http.validate(platform.schema.logRequestBodySchema, body, 'body');
  return platform.domain.logRequest(service.workspaceId, parsed, body);
}

async function rawItem(id: number): Promise<Record<string, unknown> | undefined> {
  const { dynamo, table } = platform.dynamo;
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: table(),
      Key: platform.repository.requestLogKey(service.workspaceId, id),
      ConsistentRead: true,
    }),
  );
  return Item;
}

async function counterLast(kind: 'request_log'): Promise<number> {
  const { dynamo, table } = platform.dynamo;
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: platform.ids.counterKey(kind), ConsistentRead: true }),
  );
  return Number(Item?.last ?? 0);
}

/** Strings that JSON and UTF-8 handling commonly damage. */
const TRICKY_TEXTS = [
  'plain ascii',
  'Grüße, ¿qué tal? — “quotes” ‘single’ «guillemets»',
  '日本語のテキスト、中文文本，한국어 텍스트',
  'emoji 👩‍👩‍👧‍👦 🏳️‍🌈 🇯🇵 😀 𝕏 (astral plane)',
  'combining: é (e + U+0301), Å, n̈',
  'right-to-left: مرحبا بالعالم שלום עולם',
  'escapes: "double" \\backslash\\ /slash/ \n newline \t tab \r cr \b \f',
  'controls: \u0000 \u0001 \u001f \u007f \u2028 \u2029',
  'lone surrogates: \ud83d and \udc00',
  'zero width: a\u200bb\u200dc\ufeffd',
];

/** A chat blueprint of roughly `bytes` bytes of JSON, with unusual key orders, numbers and unicode. */
function largeBlueprint(bytes: number, role: 'user' | 'assistant') {
  const blocks: Record<string, unknown>[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const text = `${TRICKY_TEXTS[i % TRICKY_TEXTS.length]} #${i} ${'lorem ipsum dolor sit amet '.repeat(40)}`;
    // Keys deliberately out of alphabetical order, unknown fields kept as sent.
    const block = {
      type: 'text',
      text,
      zeta: { y: i, b: [1.5, -0.001, 1e-7, 123456789.125, Number.MAX_SAFE_INTEGER], a: null },
      alpha: i % 2 === 0,
    };
    blocks.push(block);
    size += Buffer.byteLength(JSON.stringify(block), 'utf8') + 1;
  }
  return {
    type: 'chat',
    messages: [{ role, content: blocks, name: 'big', ключ: 'значение' }],
    input_variables: [],
    template_format: 'f-string',
  };
}

describe('id allocation', () => {
  it('hands out 500 unique, increasing ids to concurrent callers with one counter write per block', async () => {
    const { nextId, resetIdBlocks, ID_BLOCK_SIZE } = platform.ids;
    resetIdBlocks();
    const before = await counterLast('request_log');

    const ids = await Promise.all(Array.from({ length: 500 }, () => nextId('request_log')));

    expect(new Set(ids).size).toBe(500);
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!);
    expect(ids[0]).toBe(before + 1);
    expect(ids.at(-1)).toBe(before + 500);
    // Five blocks reserved, not 500 counter writes.
    expect(await counterLast('request_log')).toBe(before + 5 * ID_BLOCK_SIZE);
  });

  it('never hands the same id to two containers allocating at the same time', async () => {
    const first = platform.ids;
    vi.resetModules();
    const second = (await import('#shared/platform/ids.ts')) as typeof first;
    expect(second).not.toBe(first);

    const [a, b] = await Promise.all([
      Promise.all(Array.from({ length: 250 }, () => first.nextId('request_log'))),
      Promise.all(Array.from({ length: 250 }, () => second.nextId('request_log'))),
    ]);

    expect(new Set([...a, ...b]).size).toBe(500);
  });
});

describe('large logs', () => {
  it('round-trips a 5 MB log through S3 with every JSON value, key order and character intact', async () => {
    const body = logRequestBody({
      input: largeBlueprint(2.5 * 1024 * 1024, 'user'),
      output: largeBlueprint(2.5 * 1024 * 1024, 'assistant'),
      parameters: { temperature: 0.7, max_tokens: 4096, z: 1, a: { c: 2, b: 3 } },
      prompt_input_variables: { ключ: 'значение', emoji: '🎉', z: [3, 2, 1] },
    });
    const bodyBytes = Buffer.byteLength(JSON.stringify(body), 'utf8');
    expect(bodyBytes).toBeGreaterThan(5 * 1024 * 1024);
    expect(bodyBytes).toBeLessThan(6 * 1024 * 1024);
    await platform.ids.nextId('request_log'); // the id block is reserved before counting
    const items = await service.countItems();
    const objects = await service.countObjects();

    const { id } = await logDirect(body);

    expect(await service.countObjects()).toBe(objects + 1);
    expect(await service.countItems()).toBe(items + 1);
    const item = await rawItem(id);
    expect(item?.docKey).toEqual(expect.any(String));
    expect(item).not.toHaveProperty('doc');

    const read = await service.call('GET', `/api/public/v2/requests/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.input).toEqual(body.input);
    expect(read.body.output).toEqual(body.output);
    expect(JSON.stringify(read.body.input)).toBe(JSON.stringify(body.input));
    expect(JSON.stringify(read.body.output)).toBe(JSON.stringify(body.output));
    expect(JSON.stringify(read.body.parameters)).toBe(JSON.stringify(body.parameters));
    expect(JSON.stringify(read.body.prompt_input_variables)).toBe(
      JSON.stringify(body.prompt_input_variables),
    );
  });

  describe('the item threshold', () => {
    /** A record whose JSON is exactly `bytes` bytes (the filler is ASCII, one byte per character). */
    async function recordOfSize(bytes: number): Promise<RequestLogRecord> {
      const id = await platform.ids.nextId('request_log');
      const record: RequestLogRecord = {
        id,
        workspace_id: service.workspaceId,
        provider: 'openai',
        model: 'gpt-4o',
        api_type: null,
        function_name: '',
        input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
        output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'ok' }] }] },
        parameters: {},
        tags: [],
        metadata: {},
        prompt_id: null,
        prompt_name: null,
        prompt_version_number: null,
        prompt_input_variables: {},
        input_tokens: 0,
        output_tokens: 0,
        price: 0,
        score: 0,
        scores: { default: 0 },
        status: 'SUCCESS',
        error_type: null,
        error_message: null,
        request_start_time: Date.parse('2024-01-15T10:30:00Z'),
        request_end_time: Date.parse('2024-01-15T10:30:05Z'),
        created_at: Date.parse('2024-01-15T10:30:06Z'),
      };
      const base = Buffer.byteLength(JSON.stringify(record), 'utf8');
      const messages = (record.input as { messages: { content: { text: string }[] }[] }).messages;
      messages[0]!.content[0]!.text = 'x'.repeat(bytes - base);
      expect(Buffer.byteLength(JSON.stringify(record), 'utf8')).toBe(bytes);
      return record;
    }

    it.each([
      ['just under', -1],
      ['exactly at', 0],
    ])('keeps a log %s the threshold in the item, with nothing in the bucket', async (_what, delta) => {
      const record = await recordOfSize(platform.repository.ITEM_DOC_LIMIT_BYTES + delta);
      const objects = await service.countObjects();

      await platform.repository.putRequestLog(record);

      expect(await service.countObjects()).toBe(objects);
      const item = await rawItem(record.id);
      expect(typeof item?.doc).toBe('string');
      expect(item).not.toHaveProperty('docKey');
      expect(await platform.repository.getRequestLog(service.workspaceId, record.id)).toEqual(record);
    });

    it('moves a log one byte over the threshold to the bucket and reads it back whole', async () => {
      const record = await recordOfSize(platform.repository.ITEM_DOC_LIMIT_BYTES + 1);
      const objects = await service.countObjects();

      await platform.repository.putRequestLog(record);

      expect(await service.countObjects()).toBe(objects + 1);
      const item = await rawItem(record.id);
      expect(item?.docKey).toBe(`request-logs/${service.workspaceId}/${record.id}.json`);
      expect(item).not.toHaveProperty('doc');
      expect(await platform.repository.getRequestLog(service.workspaceId, record.id)).toEqual(record);
    });

    it('reads a log under the threshold back through GET exactly as it was logged', async () => {
      const body = logRequestBody({ input: largeBlueprint(200_000, 'user') });
      const objects = await service.countObjects();

      const { id } = await logDirect(body);

      expect(await service.countObjects()).toBe(objects);
      const read = await service.call('GET', `/api/public/v2/requests/${id}`);
      expect(read.status).toBe(200);
      expect(JSON.stringify(read.body.input)).toBe(JSON.stringify(body.input));
    });
  });
});
