import { runEnvironment } from '#shared/env-vars/env-vars.ts';
import { AppError, badRequest } from '#shared/platform/errors.ts';
import { logger } from '#shared/platform/logger.ts';
import { jsonObject } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { SANDBOX_LIMITS } from '#shared/sandbox/limits.ts';
import { type SandboxPort, type SandboxResult, sandboxPort } from '#shared/sandbox/sandbox.ts';
import { readVersion, type Selector } from '#shared/versions/read.ts';
import { versionOrLabel, versionSelectorQuery } from '#shared/versions/schemas.ts';
import { toolStore } from './registry.ts';
import { toolDefinitionSchema, toolExecutionSchema } from './schemas.ts';

/**
 * POST /api/public/v2/tool-registry/{identifier}/test-execute: runs a tool version's body (or the body
 * given in the request) in the sandbox with `args` = `inputs` and `process.env` = the workspace's
 * environment variables under the tool's own. What the code does, fails included, is a 200 whose
 * `result.status` says so; only a sandbox that cannot run at all is a 502, as PromptLayer documents.
 * Values of the variables are masked in what the answer shows (docs/tools.md#test-execute).
 */
export const TEST_EXECUTE_TIMEOUT_MS = SANDBOX_LIMITS.defaultTimeoutMs;
/** Variables at least this long are masked in the answer (shorter ones would mask ordinary text). */
export const MIN_MASKED_LENGTH = 4;
const MASK = '***';

export const testExecuteQuerySchema = z
  .object({ ...versionSelectorQuery })
  .check(z.superRefine(versionOrLabel));

export const testExecuteBodySchema = z.object({
  inputs: z.nullish(jsonObject),
  execution: z.nullish(toolExecutionSchema),
  tool_definition: z.nullish(toolDefinitionSchema),
});
export type TestExecuteBody = z.output<typeof testExecuteBodySchema>;

export const testExecuteResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  result: z.object({
    status: z.enum(['success', 'error']),
    /** The body's return value on success, null otherwise. */
    result: z.nullable(z.unknown()),
    stdout: z.string(),
    stderr: z.string(),
    duration_ms: z.int(),
    /** On error: `type` (TimeoutError, MemoryLimitError, UnsupportedLanguageError, or the thrown error's name) and `message`. */
    error: z.nullable(z.object({ type: z.string(), message: z.string() })),
  }),
});
type TestExecuteAnswer = z.infer<typeof testExecuteResponseSchema>;

export async function testExecuteTool(
  workspaceId: number,
  identifier: string,
  select: Selector,
  body: TestExecuteBody,
  sandbox: SandboxPort = sandboxPort,
): Promise<TestExecuteAnswer> {
  const { head, version } = await readVersion(toolStore, workspaceId, identifier, select);
  const execution = body.execution ?? version.execution;
  if (!execution) {
    throw badRequest(
      `Version ${version.number} of tool ${head.name} has no execution config: publish one with a body, or send execution`,
    );
  }
  if (execution.language !== 'javascript') {
    return answer('error', null, { stdout: '', stderr: '' }, 0, {
      type: 'UnsupportedLanguageError',
      message: `language ${execution.language} is not supported: tool bodies run as JavaScript`,
    });
  }
  const env = await runEnvironment(workspaceId, head.id);
  const started = Date.now();
  let result: SandboxResult;
  try {
    result = await sandbox.runJavaScript({
      workspaceId,
      code: execution.code,
      data: body.inputs ?? {},
      env,
      parameter: 'args',
      captureOutput: true,
      timeoutMs: TEST_EXECUTE_TIMEOUT_MS,
      memoryBytes: SANDBOX_LIMITS.memoryBytes,
    });
  } catch (error) {
    logger.error('The sandbox could not run a tool body', { error: error as Error });
    throw new AppError(502, 'sandbox_unavailable', 'The sandbox could not run the code: try again');
  }
  const durationMs = Date.now() - started;
  const mask = masker(Object.values(env));
  const output = { stdout: mask(result.output?.stdout ?? ''), stderr: mask(result.output?.stderr ?? '') };
  if (result.ok) return answer('success', maskJson(result.value, mask), output, durationMs, null);
  return answer('error', null, output, durationMs, { ...errorOf(result), message: mask(result.error) });
}

function answer(
  status: 'success' | 'error',
  value: unknown,
  output: { stdout: string; stderr: string },
  durationMs: number,
  error: { type: string; message: string } | null,
): TestExecuteAnswer {
  return {
    success: true,
    message: status === 'success' ? 'Tool executed' : 'Tool execution failed',
    result: { status, result: value ?? null, ...output, duration_ms: durationMs, error },
  };
}

/** The error's type: the limit hit, or the name of what the code threw (`TypeError: ...`). */
function errorOf(result: Extract<SandboxResult, { ok: false }>): { type: string } {
  if (result.reason === 'timeout') return { type: 'TimeoutError' };
  if (result.reason === 'memory') return { type: 'MemoryLimitError' };
  const named = /^([A-Za-z]*Error): /.exec(result.error);
  return { type: named?.[1] ?? 'ExecutionError' };
}

/** Replaces every occurrence of the variables' values (longest first) with `***`. */
function masker(values: string[]): (text: string) => string {
  const secrets = values
    .filter((value) => value.length >= MIN_MASKED_LENGTH)
    .sort((a, b) => b.length - a.length);
  return (text) => secrets.reduce((masked, secret) => masked.replaceAll(secret, MASK), text);
}

/** The value with its strings (keys included) masked; its nesting is bounded by the sandbox (128). */
function maskJson(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskJson(item, mask));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [mask(key), maskJson(item, mask)]));
  }
  return value;
}
