/**
 * A skill collection created from a 4 MB ZIP of 100 files, end to end:
 *
 * (a) through the local gateway (multipart/form-data, as a client sends it), the function warmed by a
 *     small create first: wall time from request to answer, with the emulators in this process;
 * (b) the create function alone in a child process of its own, called with the API Gateway event the
 *     gateway would hand it (base64 body), against this process's emulators: its peak RSS, which is
 *     what the Lambda's memory must hold.
 */
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { ZipFile } from 'yazl';
import { type BenchRow, fmt, runBenchChild, serveBenchChild } from './support.ts';

const MB = 1024 * 1024;
const FILES = 100;
const SKILLS = 10;
const TARGETS = { seconds: 1, rssMb: 200 };
const CREATE_HANDLER = 'functions/http/skill-collection-create.ts';

/** 10 skills of 10 files each (a SKILL.md and 9 references), ~4 MB once deflated: text that compresses little. */
async function benchArchive(): Promise<Buffer> {
  const zip = new ZipFile();
  const perFile = Math.floor((4 * MB) / (FILES - SKILLS));
  for (let skill = 0; skill < SKILLS; skill++) {
    const name = `skill-${skill}`;
    zip.addBuffer(
      Buffer.from(`---\nname: ${name}\ndescription: Bench skill ${skill}.\n---\n\n# ${name}\n`),
      `${name}/SKILL.md`,
    );
    for (let file = 1; file < FILES / SKILLS; file++) {
      // base64 of random bytes deflates back to about the bytes' size: perFile bytes in the ZIP.
      const text = randomBytes(perFile)
        .toString('base64')
        .replace(/(.{76})/g, '$1\n');
      zip.addBuffer(Buffer.from(text), `${name}/references/ref-${file}.md`);
    }
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function zipOfOneSkill(): Promise<Buffer> {
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from('---\nname: warm\ndescription: Warm-up.\n---\n'), 'warm/SKILL.md');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function multipart(name: string, zip: Buffer) {
  const form = new FormData();
  form.set('metadata', JSON.stringify({ name, commit_message: 'bench' }));
  form.set('archive', new Blob([new Uint8Array(zip)]), 'bench.zip');
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type')!,
  };
}

export async function benchSkillCollectionUpload(): Promise<BenchRow[]> {
  const { startLocalService } = await import('../local/service.ts');
  const service = await startLocalService({ port: 0, dataDir: null });
  try {
    const zip = await benchArchive();
    const label = `skill collection create: ${fmt(zip.length / MB, 1)} MB ZIP of ${FILES} files`;

    const post = async (name: string, archive: Buffer) => {
      const { body, contentType } = await multipart(name, archive);
      const started = performance.now();
      const response = await fetch(new URL('/api/public/v2/skill-collections', service.baseUrl), {
        method: 'POST',
        headers: { 'X-API-KEY': service.apiKey, 'Content-Type': contentType },
        body,
      });
      const answer = await response.text();
      if (response.status !== 201)
        throw new Error(`create answered ${response.status}: ${answer.slice(0, 300)}`);
      return (performance.now() - started) / 1000;
    };
    // A warm function, as a steady flow of uploads meets it: the first call loads (and, locally,
    // transpiles) the handler.
    await post(`bench-warm-${Date.now()}`, await zipOfOneSkill());
    const seconds = await post(`bench-${Date.now()}`, zip);

    const child = await runChild({
      workspaceId: service.workspaceId,
      ...(await multipart(`bench-child-${Date.now()}`, zip)),
    });
    return [
      {
        name: `${label}: through the local gateway (warm)`,
        value: `${fmt(seconds, 2)} s`,
        target: `< ${TARGETS.seconds} s`,
      },
      {
        name: `${label}: function peak RSS (own process)`,
        value: `${fmt(child.peakRssMb, 0)} MB (${fmt(child.baselineRssMb, 0)} MB before the call, ${fmt(child.ms / 1000, 2)} s)`,
        target: `< ${TARGETS.rssMb} MB`,
      },
    ];
  } finally {
    await service.stop();
  }
}

// ------------------------------------------------------------------------------------- child process

interface ChildTask {
  workspaceId: number;
  body: Buffer | { type: 'Buffer'; data: number[] } | string;
  contentType: string;
}

interface ChildResult {
  ms: number;
  peakRssMb: number;
  baselineRssMb: number;
}

const CHILD_FLAG = '--skills-bench-child';

const runChild = (task: ChildTask) =>
  runBenchChild<ChildTask & { body: string }, ChildResult>(
    import.meta.url,
    CHILD_FLAG,
    { ...task, body: (task.body as Buffer).toString('base64') },
    ['--expose-gc'],
  );

async function childMain(task: ChildTask & { body: string }): Promise<ChildResult> {
  const { REPO_ROOT } = await import('../local/service.ts');
  const { join } = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  const { handler } = await import(pathToFileURL(join(REPO_ROOT, CREATE_HANDLER)).href);
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const started = performance.now();
  const answer = await handler(proxyEvent(task), { awsRequestId: 'bench' } as Context);
  const ms = performance.now() - started;
  clearInterval(sampler);
  if (answer.statusCode !== 201) throw new Error(`create answered ${answer.statusCode}: ${answer.body}`);
  return { ms, peakRssMb: Math.max(peak, process.memoryUsage().rss) / MB, baselineRssMb: baseline / MB };
}

function proxyEvent(task: ChildTask & { body: string }): APIGatewayProxyEvent {
  return {
    body: task.body,
    headers: { 'Content-Type': task.contentType },
    multiValueHeaders: {},
    httpMethod: 'POST',
    isBase64Encoded: true,
    path: '/api/public/v2/skill-collections',
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/api/public/v2/skill-collections',
    requestContext: {
      authorizer: {
        workspaceId: String(task.workspaceId),
        userId: '1',
        permissions: JSON.stringify({ skills: 'edit' }),
      },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

serveBenchChild(CHILD_FLAG, childMain);
