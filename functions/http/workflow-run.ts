import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { callbackSecret } from '#shared/workflows/callback.ts';
import { runWorkflowBodySchema, startExecution } from '#shared/workflows/engine/start.ts';
import { findWorkflowVersion } from '#shared/workflows/store.ts';

const runResponseSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    workflow_version_execution_id: z.int(),
    warning: z.nullable(z.string()),
    /** Only with `callback_url`: the secret the callback's signature is made with. */
    callback_secret: z.optional(z.string()),
  })
  .clone()
  .register(z.globalRegistry, { id: 'RunWorkflowResponse' });

/**
 * POST /workflows/{workflow_name}/run: by name or numeric id, the latest version, or the one a label
 * or version number names. 201 once the run is queued; 202 with `callback_url` (the result is posted
 * there when the run ends, signed with the answer's `callback_secret`).
 */
export const handler = httpRoute({
  path: z.object({ workflow_name: wellFormedString().check(z.minLength(1), z.maxLength(255)) }),
  body: runWorkflowBodySchema,
  permission: ['workflows', 'edit'],
  responses: { 201: runResponseSchema, 202: runResponseSchema },
  handle: async ({ path, body, rawBody, auth }) => {
    const version = await findWorkflowVersion(auth.workspaceId, path.workflow_name, {
      version: body.workflow_version_number ?? undefined,
      label: body.workflow_label_name ?? undefined,
    });
    const rawInputs = (rawBody as { input_variables?: Record<string, unknown> | null }).input_variables ?? {};
    const { executionId, warning } = await startExecution(auth.workspaceId, version, body, rawInputs);
    const answer = {
      success: true as const,
      message: 'Workflow execution started',
      workflow_version_execution_id: executionId,
      warning,
    };
    if (!body.callback_url) return new HttpResponse(201, answer);
    return new HttpResponse(202, {
      ...answer,
      callback_secret: await callbackSecret(auth.workspaceId, executionId),
    });
  },
});
