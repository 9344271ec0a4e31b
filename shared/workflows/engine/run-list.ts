import { notFound } from '#shared/platform/errors.ts';
import { isoTimestamp } from '#shared/platform/response-schemas.ts';
import { intParam } from '#shared/platform/schemas.ts';
import { toIso } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import { findHead } from '#shared/versions/read.ts';
import { workflowStore } from '../registry.ts';
import { type ListedRun, listExecutions, type RunListPosition } from './store.ts';

/**
 * GET /workflows/{workflow_id_or_name}/runs: a workflow's runs, newest first, a page at a time after
 * the `next_cursor` of the previous page (one Query of the runs index; a run made meanwhile never
 * shifts the pages).
 */
export const RUN_LIST_MAX = 100;

/** `<created ms>-<execution id>`: where the previous page ended. */
const cursorPattern = /^(\d{1,15})-(\d{1,15})$/;

export const runListQuerySchema = z.object({
  per_page: z._default(intParam(1, RUN_LIST_MAX), 20),
  cursor: z
    .optional(z.string().check(z.regex(cursorPattern, 'must be the next_cursor of a previous page')))
    .clone()
    .register(z.globalRegistry, {
      description: 'The `next_cursor` of the previous page: this page continues after its last run.',
    }),
});

export const RUN_STATUSES = ['RUNNING', 'SUCCESS', 'FAILED'] as const;

export const runListSchema = z.object({
  success: z.literal(true),
  runs: z.array(
    z
      .object({
        workflow_version_execution_id: z.int(),
        workflow_version_id: z.int(),
        version_number: z.int(),
        status: z.enum(RUN_STATUSES).clone().register(z.globalRegistry, {
          description:
            '`RUNNING` until the run has finished and been reported; then `SUCCESS` (an output node succeeded) or `FAILED`.',
        }),
        created_at: isoTimestamp,
        finished_at: z.nullable(isoTimestamp),
      })
      .clone()
      .register(z.globalRegistry, { id: 'WorkflowRun' }),
  ),
  next_cursor: z
    .nullable(z.string())
    .clone()
    .register(z.globalRegistry, { description: 'null: this is the last page.' }),
});

function runStatus(run: ListedRun): (typeof RUN_STATUSES)[number] {
  if (run.notifiedAt === undefined) return 'RUNNING';
  // A run the watchdog gave up on (its version gone) was reported with no outcome.
  return run.outcome === 'SUCCESS' ? 'SUCCESS' : 'FAILED';
}

export async function listWorkflowRuns(
  workspaceId: number,
  identifier: string,
  query: z.infer<typeof runListQuerySchema>,
) {
  const head = await findHead(workflowStore, workspaceId, identifier);
  if (!head) throw notFound(`Workflow ${identifier} not found`);
  const match = query.cursor ? cursorPattern.exec(query.cursor) : null;
  const after: RunListPosition | undefined = match
    ? { createdAt: Number(match[1]), executionId: Number(match[2]) }
    : undefined;
  const { runs, next } = await listExecutions(workspaceId, head.id, query.per_page, after);
  return {
    success: true as const,
    runs: runs.map((run) => ({
      workflow_version_execution_id: run.executionId,
      workflow_version_id: run.versionId,
      version_number: run.versionNumber,
      status: runStatus(run),
      created_at: toIso(run.createdAt),
      finished_at: run.finishedAt === undefined ? null : toIso(run.finishedAt),
    })),
    next_cursor: next ? `${next.createdAt}-${next.executionId}` : null,
  };
}
