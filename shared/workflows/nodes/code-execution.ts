import * as z from '#shared/platform/zod.ts';
import { SANDBOX_LIMITS } from '#shared/sandbox/limits.ts';
import { type NodeExecutor, NodeFailure } from './types.ts';

/**
 * CODE_EXECUTION: the node's `code` is the body of a JavaScript function that sees `data` (the node's
 * inputs: input variables and dependency values, by name) and returns a JSON value, run in the sandbox
 * (QuickJS in a worker thread, docs/code-execution.md), with the workspace's environment variables as
 * `process.env` (docs/env-vars.md). PYTHON is accepted in a workflow version, as
 * PromptLayer's examples use it, and fails when a run reaches it.
 */
const MAX_TIMEOUT_SECONDS = SANDBOX_LIMITS.maxTimeoutMs / 1000;

export const codeExecutionConfig = z.looseObject({
  code: z
    .string({ error: 'code must be a string' })
    .check(z.maxLength(100_000, 'code must be at most 100000 characters')),
  /** PromptLayer writes `PYTHON` / `JAVASCRIPT` (and lowercase in tool bodies): either case is taken. */
  language: z._default(
    z.pipe(
      z.pipe(
        z.string(),
        z.transform((language) => language.toUpperCase()),
      ),
      z.enum(['JAVASCRIPT', 'PYTHON'], { error: 'language must be JAVASCRIPT or PYTHON' }),
    ),
    'JAVASCRIPT',
  ),
  timeout_seconds: z.optional(
    z
      .number()
      .check(
        z.gte(1, 'timeout_seconds must be between 1 and 60'),
        z.lte(MAX_TIMEOUT_SECONDS, 'timeout_seconds must be between 1 and 60'),
      ),
  ),
});

export type CodeExecutionConfig = z.infer<typeof codeExecutionConfig>;

export const codeExecution: NodeExecutor<CodeExecutionConfig> = {
  config: codeExecutionConfig,
  async execute(config, context) {
    if (config.language !== 'JAVASCRIPT')
      throw new NodeFailure(`language ${config.language} is not supported`);
    const limitMs = (config.timeout_seconds ?? SANDBOX_LIMITS.defaultTimeoutMs / 1000) * 1000;
    // The node's deadline (the run's) bounds the code too, however long the node's own limit.
    const left = context.deadline - Date.now();
    if (left <= 0) throw new NodeFailure('timed out: the run reached its deadline before the code started');
    const timeoutMs = Math.max(1, Math.round(Math.min(limitMs, left)));
    const result = await context.ports.sandbox.runJavaScript({
      workspaceId: context.workspaceId,
      code: config.code,
      data: context.inputs,
      env: await context.ports.env.workspaceEnvironment(context.workspaceId),
      timeoutMs,
      memoryBytes: SANDBOX_LIMITS.memoryBytes,
    });
    if (result.ok) return result.value;
    throw new NodeFailure(result.error);
  },
};
