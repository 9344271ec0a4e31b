import { nextId } from '#shared/platform/ids.ts';
import { outboundUrl } from '#shared/platform/outbound-http.ts';
import { jsonObject } from '#shared/platform/schemas.ts';
import { storeJson } from '#shared/platform/stored-json.ts';
import * as z from '#shared/platform/zod.ts';
import { metadataField } from '#shared/request-logs/annotation-schemas.ts';
import { planGraph } from '../plan.ts';
import type { WorkflowVersion } from '../store.ts';
import { INLINE_VALUE_LIMIT_BYTES } from './limits.ts';
import { defaultProgressDeps, nodeMessage, type ProgressDeps, type RunContext } from './progress.ts';
import { inputWarning } from './readiness.ts';
import { createExecution, type ExecutionMeta, inputsObjectKey, type NodeItem } from './store.ts';

/**
 * Starts a run of a workflow version: the execution's items (every node QUEUED with its count of
 * predecessors), then one message per root node. The run's deadline is `timeout_seconds` after its
 * start (default 15 minutes, at most an hour); the watchdog fails what is still unfinished then.
 */
export const DEFAULT_RUN_TIMEOUT_SECONDS = 900;
export const MAX_RUN_TIMEOUT_SECONDS = 3600;

/**
 * A run's metadata is kept on the execution's item (DynamoDB's 400 KB item limit), unlike its input
 * variables, which go to S3 when large: it is bounded so that a run is refused before anything is written.
 */
export const MAX_RUN_METADATA_BYTES = 64 * 1024;

const runMetadata = z.nullish(metadataField).check(
  z.superRefine((metadata, ctx) => {
    if (metadata && Buffer.byteLength(JSON.stringify(metadata), 'utf8') > MAX_RUN_METADATA_BYTES) {
      ctx.addIssue({
        code: 'custom',
        message: `metadata is at most ${MAX_RUN_METADATA_BYTES} bytes of JSON; keep large values in input_variables`,
      });
    }
  }),
);

/** The run body: PromptLayer's fields (unknown ones, e.g. the Python SDK's, are ignored) and ours. */
export const runWorkflowBodySchema = z
  .object({
    workflow_label_name: z.nullish(z.string().check(z.minLength(1), z.maxLength(255))),
    workflow_version_number: z.nullish(z.int().check(z.gte(1), z.lte(Number.MAX_SAFE_INTEGER))),
    input_variables: z.nullish(jsonObject),
    metadata: runMetadata,
    return_all_outputs: z.nullish(z.boolean()),
    callback_url: z.nullish(outboundUrl()),
    /** How long the run may take before its unfinished nodes are FAILED (seconds). */
    timeout_seconds: z.nullish(z.int().check(z.gte(1), z.lte(MAX_RUN_TIMEOUT_SECONDS))),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (body.workflow_label_name != null && body.workflow_version_number != null) {
        ctx.addIssue({
          code: 'custom',
          path: ['workflow_version_number'],
          message: 'give workflow_label_name or workflow_version_number, not both',
        });
      }
    }),
  )
  .clone()
  .register(z.globalRegistry, { id: 'RunWorkflow' });
export type RunWorkflowBody = z.infer<typeof runWorkflowBodySchema>;

export interface StartedRun {
  executionId: number;
  warning: string | null;
}

export async function startExecution(
  workspaceId: number,
  version: WorkflowVersion,
  body: RunWorkflowBody,
  /** The input variables exactly as sent (a `__proto__` name included). */
  rawInputs: Record<string, unknown> = body.input_variables ?? {},
  deps: ProgressDeps = defaultProgressDeps,
): Promise<StartedRun> {
  const plan = planGraph(version.graph);
  const executionId = await nextId('workflow_execution');
  const now = deps.now();
  const timeoutSeconds = body.timeout_seconds ?? DEFAULT_RUN_TIMEOUT_SECONDS;
  const inputs = await storeJson(
    inputsObjectKey(workspaceId, executionId),
    rawInputs,
    INLINE_VALUE_LIMIT_BYTES,
  );
  const nodes: NodeItem[] = version.graph.nodes.map((node, order) => ({
    name: node.name,
    order,
    isOutput: node.is_output_node,
    status: 'QUEUED',
    pending: plan.nodes.get(node.name)?.predecessors.length ?? 0,
  }));
  const meta: ExecutionMeta = {
    workspaceId,
    executionId,
    workflowId: version.workflow_id,
    workflowName: version.workflow_name,
    versionId: version.version_id,
    versionNumber: version.version_number,
    inputsJson: inputs.json,
    inputsKey: inputs.key,
    returnAllOutputs: body.return_all_outputs ?? false,
    callbackUrl: body.callback_url ?? null,
    metadata: body.metadata ?? null,
    status: 'RUNNING',
    createdAt: now,
    deadline: now + timeoutSeconds * 1000,
    timeoutSeconds,
    sinksLeft: [...plan.nodes.values()].filter((node) => node.successors.length === 0).length,
  };
  await createExecution(meta, nodes);
  const run: RunContext = {
    ws: workspaceId,
    executionId,
    workflowId: version.workflow_id,
    versionNumber: version.version_number,
    plan,
    deps,
  };
  await deps.send(plan.roots.map((root) => nodeMessage(run, root)));
  return { executionId, warning: inputWarning(version.graph.required_input_variables, rawInputs) };
}
