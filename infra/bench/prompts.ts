import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { REPO_ROOT, startLocalService } from '../local/service.ts';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

import { countDynamoWaves, type BenchRow as Row } from './support.ts';

const GET_HANDLER = 'functions/http/prompt-template-get.ts';
const PUBLISH_HANDLER = 'functions/http/prompt-template-publish.ts';
const RENDER_HANDLER = 'functions/http/prompt-template-render.ts';
const HIT_SAMPLES = 20_000;

export async function benchPrompts(): Promise<Row[]> {
  const service = await startLocalService({ port: 0, dataDir: null });
  try {
    return await measure(service.workspaceId);
  } finally {
    await service.stop();
  }
}

async function measure(workspaceId: number): Promise<Row[]> {
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  const { toAuthorizerContext, FULL_ACCESS } = await import('#shared/platform/auth-context.ts');
  const counter = countDynamoWaves(documentClient());

  const get = (await import(join(REPO_ROOT, GET_HANDLER))).handler as Handler;
  const publishHandler = (await import(join(REPO_ROOT, PUBLISH_HANDLER))).handler as Handler;
  const render = (await import(join(REPO_ROOT, RENDER_HANDLER))).handler as Handler;
  const authorizer = toAuthorizerContext({
    workspaceId,
    userId: 1,
    userEmail: null,
    permissions: FULL_ACCESS,
  });
  const context = { awsRequestId: 'bench' } as Context;
  const event = (init: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent =>
    ({
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { authorizer },
      ...init,
    }) as APIGatewayProxyEvent;
  const read = (
    identifier: string,
    query: Record<string, string> = {},
    headers: Record<string, string> = {},
  ) =>
    event({
      pathParameters: { identifier },
      queryStringParameters: Object.keys(query).length ? query : null,
      headers,
    });
  const call = async (handler: Handler, request: APIGatewayProxyEvent) => {
    const result = await handler(request, context);
    if (result.statusCode >= 300) throw new Error(`bench call answered ${result.statusCode}: ${result.body}`);
    return JSON.parse(result.body);
  };
  const publish = (name: string, text: string, labels: string[] = [], type: 'chat' | 'completion' = 'chat') =>
    call(
      publishHandler,
      event({
        body: JSON.stringify({
          prompt_template: { prompt_name: name, tags: ['bench'] },
          prompt_version: {
            prompt_template:
              type === 'chat'
                ? { type, messages: [{ role: 'user', content: [{ type: 'text', text }] }] }
                : { type, content: [{ type: 'text', text }] },
            metadata: { model: { provider: 'openai', name: 'gpt-4o', parameters: { temperature: 0 } } },
          },
          release_labels: labels,
        }),
      }),
    );
  const counted = async (run: () => Promise<unknown>) => {
    counter.reset();
    await run();
    return { calls: counter.calls, waves: counter.waves };
  };
  const noCache = { 'Cache-Control': 'no-cache' };

  // Warm the id blocks (prompt, prompt_version, prompt_label) and the module graph.
  await publish('bench-warmup', 'warm', ['warm']);
  await publish('bench-chat', 'Hello {name}', ['prod', 'staging']);
  await publish('bench-chat', 'Hello again {name}', ['prod', 'staging']);
  const { id: chatId } = await call(get, read('bench-chat'));
  // Snippets three levels deep: template -> level 1 (latest + pinned) -> level 2 (a label on an older
  // version) -> level 3.
  await publish('bench-s3', 'level three', [], 'completion');
  await publish('bench-s2', 'level two @@@bench-s3@@@', ['prod'], 'completion');
  await publish('bench-s2', 'level two, newer', [], 'completion');
  await publish('bench-s1a', 'level one @@@bench-s2@label:prod@@@', [], 'completion');
  await publish('bench-s1b', 'pinned one', [], 'completion');
  await publish(
    'bench-snippets',
    'top @@@bench-s1a@@@ and @@@bench-s1b@version_number:1@@@',
    [],
    'completion',
  );

  const byNameMiss = await counted(() => call(get, read('bench-chat', {}, noCache)));
  await call(get, read('bench-chat'));
  const byNameHit = await counted(() => call(get, read('bench-chat')));
  const byIdFirst = await counted(() => call(get, read(String(chatId), {}, noCache)));
  const byIdMiss = await counted(() => call(get, read(String(chatId), {}, noCache)));
  const pinnedMiss = await counted(() => call(get, read('bench-chat', { version: '1' }, noCache)));
  const labelOlderMiss = await counted(async () => {
    await publish('bench-older', 'v1', ['prod']);
    await publish('bench-older', 'v2');
    counter.reset();
    await call(get, read('bench-older', { label: 'prod' }, noCache));
  });
  const noSnippets = await counted(() =>
    call(get, read('bench-snippets', { resolve_snippets: 'false' }, noCache)),
  );
  const withSnippets = await counted(() => call(get, read('bench-snippets', {}, noCache)));

  const publishMove = await counted(() => publish('bench-chat', 'Hello third {name}', ['prod', 'staging']));
  const publishNewLabels = await counted(() =>
    publish('bench-chat', 'Hello fourth {name}', ['canary', 'beta']),
  );
  const publishFirst = await counted(() => publish('bench-fresh', 'Hello {name}', ['prod', 'staging']));
  const { resetIdBlocks } = await import('#shared/platform/ids.ts');
  resetIdBlocks();
  const publishCold = await counted(() => publish('bench-cold', 'Hello {name}', ['prod', 'staging']));

  // Cache-hit latency through the whole handler.
  const hit = read('bench-chat', { label: 'prod' });
  await call(get, hit);
  for (let i = 0; i < 2_000; i++) await get(hit, context);
  const samples = new Float64Array(HIT_SAMPLES);
  counter.reset();
  for (let i = 0; i < HIT_SAMPLES; i++) {
    const started = performance.now();
    await get(hit, context);
    samples[i] = performance.now() - started;
  }
  const hitCalls = counter.calls;
  samples.sort((a, b) => a - b);
  const p50 = samples[Math.floor(HIT_SAMPLES * 0.5)] ?? 0;
  const p99 = samples[Math.floor(HIT_SAMPLES * 0.99)] ?? 0;

  // POST /prompt-templates/{identifier} (the SDK's templates.get): five variables, rendered, with llm_kwargs.
  const fiveVariables = { name: 'Ann', city: 'Lyon', topic: 'trains', tone: 'warm', words: 120 };
  const renderTemplates = {
    'f-string': [
      'You are a {tone} travel guide for {city}.',
      'Hello, I am {name}. Tell me about {topic} in {city}, in at most {words} words.',
    ],
    jinja2: [
      'You are a {{ tone }} travel guide for {{ city }}.',
      'Hello, I am {{ name }}. Tell me about {{ topic | lower }} in {{ city }}{% if words %}, in at most {{ words }} words{% endif %}.',
    ],
  } as const;
  for (const [format, [system, user]] of Object.entries(renderTemplates)) {
    await call(
      publishHandler,
      event({
        body: JSON.stringify({
          prompt_template: { prompt_name: `bench-render-${format}` },
          prompt_version: {
            prompt_template: {
              type: 'chat',
              template_format: format,
              messages: [
                { role: 'system', content: [{ type: 'text', text: system }] },
                { role: 'user', content: [{ type: 'text', text: user }] },
              ],
            },
            metadata: { model: { provider: 'openai', name: 'gpt-4o', parameters: { temperature: 0 } } },
          },
        }),
      }),
    );
  }
  const renderEvent = (format: string, headers: Record<string, string> = {}) =>
    event({
      pathParameters: { identifier: `bench-render-${format}` },
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ input_variables: fiveVariables, label: undefined }),
    });
  const renderMiss = await counted(() => call(render, renderEvent('f-string', noCache)));
  await call(render, renderEvent('f-string'));
  const renderHit = await counted(() => call(render, renderEvent('f-string')));
  const renderLatency = async (format: string) => {
    const request = renderEvent(format);
    const answer = await call(render, request);
    const texts = (answer.llm_kwargs.messages as { content: { text: string }[] }[]).flatMap((message) =>
      message.content.map((part) => part.text),
    );
    if (answer.warning !== null || texts.some((text) => /[{}]/.test(text))) {
      throw new Error(`bench render of ${format} left placeholders: ${JSON.stringify(answer)}`);
    }
    for (let i = 0; i < 2_000; i++) await render(request, context);
    const times = new Float64Array(HIT_SAMPLES);
    counter.reset();
    for (let i = 0; i < HIT_SAMPLES; i++) {
      const started = performance.now();
      await render(request, context);
      times[i] = performance.now() - started;
    }
    times.sort();
    return {
      calls: counter.calls,
      p50: times[Math.floor(HIT_SAMPLES * 0.5)] ?? 0,
      p99: times[Math.floor(HIT_SAMPLES * 0.99)] ?? 0,
    };
  };
  const fstringLatency = await renderLatency('f-string');
  const jinjaLatency = await renderLatency('jinja2');

  const trips = (r: { calls: number; waves: number }) =>
    `${r.calls} call${r.calls === 1 ? '' : 's'} / ${r.waves} round trip${r.waves === 1 ? '' : 's'}`;
  return [
    { name: 'prompt GET by name, latest, no snippets, cache miss', value: trips(byNameMiss), target: '<= 2' },
    { name: 'prompt GET, cache hit', value: trips(byNameHit), target: '0' },
    { name: 'prompt GET by id, first read of that id, cache miss', value: trips(byIdFirst), target: '<= 2' },
    { name: 'prompt GET by id, id seen before, cache miss', value: trips(byIdMiss), target: '<= 2' },
    { name: 'prompt GET version=N, cache miss', value: trips(pinnedMiss), target: '<= 2' },
    {
      name: 'prompt GET label on an older version, cache miss',
      value: trips(labelOlderMiss),
      target: '<= 2',
    },
    {
      name: 'prompt GET with 3 snippet levels, resolve_snippets=false',
      value: trips(noSnippets),
      target: '<= 2',
    },
    {
      name: 'prompt GET with 3 snippet levels (latest+pinned, label on an older version, latest)',
      value: trips(withSnippets),
      target: `<= ${noSnippets.waves + 3} round trips`,
    },
    { name: 'prompt publish, moving two labels', value: trips(publishMove), target: '<= 4' },
    { name: 'prompt publish, creating two labels', value: trips(publishNewLabels), target: '<= 4' },
    { name: 'prompt publish, new template with two labels', value: trips(publishFirst), target: '<= 4' },
    {
      name: 'prompt publish, new template with two labels, cold container (no id blocks)',
      value: trips(publishCold),
      target: '<= 4',
    },
    {
      name: 'prompt POST (templates.get) by name, 5 variables, cache miss',
      value: trips(renderMiss),
      target: `<= 2 (GET: ${byNameMiss.waves})`,
    },
    { name: 'prompt POST (templates.get), 5 variables, cache hit', value: trips(renderHit), target: '0' },
    ...(
      [
        ['f-string', fstringLatency],
        ['jinja2', jinjaLatency],
      ] as const
    ).map(([format, latency]) => ({
      name: `prompt POST cache hit, 5 ${format} variables rendered + llm_kwargs, in-process (${HIT_SAMPLES} calls, ${latency.calls} DynamoDB calls)`,
      value: `p50 ${latency.p50.toFixed(3)} ms, p99 ${latency.p99.toFixed(3)} ms`,
      target: 'p50 < 0.3 ms',
    })),
    {
      name: `prompt GET cache hit latency in-process (${HIT_SAMPLES} calls, ${hitCalls} DynamoDB calls)`,
      value: `p50 ${p50.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms`,
      target: 'p50 < 0.2 ms',
    },
  ];
}
