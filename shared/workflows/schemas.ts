import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { MAX_EMAIL_LENGTH } from '#shared/platform/auth-context.ts';
import { isoTimestamp, pageOf } from '#shared/platform/response-schemas.ts';
import { ownKeysRecord, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import {
  headListQuerySchema,
  labelNameSchema,
  MAX_RELEASE_LABELS,
  publishExternalIdsSchema,
  versionOrLabel,
  versionSelectorQuery,
} from '#shared/versions/schemas.ts';
import {
  edgeConditionalSchema,
  requiredInputVariablesSchema,
  workflowEdgeSchema,
  workflowNodeSchema,
} from './definition.ts';

/** Request and response schemas of the workflow definition routes (field names from the reference). */

export const workflowNameSchema = wellFormedString().check(z.minLength(1), z.maxLength(255));
/** `{workflow_id_or_name}`: a workflow name, or a workflow id as digits. */
export const workflowIdentifierSchema = wellFormedString().check(z.minLength(1), z.maxLength(1024));
const commitMessageSchema = z.string().check(z.maxLength(2000));

const releaseLabels = z.array(labelNameSchema).check(z.maxLength(MAX_RELEASE_LABELS));

/** POST /rest/workflows: a new workflow (`name`) or a new version of one (`workflow_id` or `workflow_name`). */
export const createWorkflowBodySchema = z
  .object({
    name: z.nullish(workflowNameSchema),
    workflow_id: z.nullish(z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER))),
    workflow_name: z.nullish(workflowNameSchema),
    folder_id: z.nullish(z.int().check(z.positive())),
    commit_message: z.nullish(commitMessageSchema),
    nodes: z.array(workflowNodeSchema),
    required_input_variables: z.nullish(requiredInputVariablesSchema),
    edges: z.nullish(z.array(workflowEdgeSchema)),
    release_labels: z.nullish(releaseLabels),
    external_ids: z.nullish(publishExternalIdsSchema),
  })
  .check(
    z.superRefine((body, ctx) => {
      const given = (['name', 'workflow_id', 'workflow_name'] as const).filter(
        (field) => body[field] != null,
      );
      if (given.length > 1) {
        ctx.addIssue({
          code: 'custom',
          path: [given[1]!],
          message: 'give one of name (a new workflow), workflow_id or workflow_name (a new version)',
        });
      }
    }),
  );
export type CreateWorkflowBody = z.output<typeof createWorkflowBodySchema>;

export const nodeUpdateSchema = z.object({
  node_type: z.nullish(workflowNodeSchema.shape.node_type),
  configuration: z.nullish(workflowNodeSchema.shape.configuration),
  dependencies: z.nullish(workflowNodeSchema.shape.dependencies.def.innerType),
  is_output_node: z.nullish(z.boolean()),
});
export type NodeUpdate = z.output<typeof nodeUpdateSchema>;

/** PATCH /rest/workflows/{workflow_id_or_name}: a new version from a partial change. */
export const patchWorkflowBodySchema = z.object({
  base_version: z.nullish(z.int().check(z.gte(1), z.lte(Number.MAX_SAFE_INTEGER))),
  commit_message: z.nullish(commitMessageSchema),
  nodes: z.nullish(ownKeysRecord(workflowNodeSchema.shape.name, z.nullable(nodeUpdateSchema))),
  required_input_variables: z.nullish(requiredInputVariablesSchema),
  edges: z.nullish(z.array(workflowEdgeSchema)),
  release_labels: z.nullish(releaseLabels),
});
export type PatchWorkflowBody = z.output<typeof patchWorkflowBodySchema>;

export const getWorkflowQuerySchema = z
  .object({
    ...versionSelectorQuery,
  })
  .check(z.superRefine(versionOrLabel));

/** GET /workflows. `created_by_email` is any text up to an address's length (one that is no address matches nothing). */
export const listWorkflowsQuerySchema = headListQuerySchema({
  created_by_email: z.optional(z.string().check(z.maxLength(MAX_EMAIL_LENGTH))),
});
export type ListWorkflowsQuery = z.output<typeof listWorkflowsQuerySchema>;

// ---------------------------------------------------------------------------------------------------------
// Responses

const nodeSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  node_type: z.string(),
  is_output_node: z.boolean(),
});

/** POST /rest/workflows and PATCH /rest/workflows/{workflow_id_or_name} (201). */
export const createWorkflowResponseSchema = z
  .object({
    success: z.literal(true),
    workflow_id: z.int(),
    workflow_name: z.string(),
    workflow_version_id: z.int(),
    version_number: z.int(),
    base_version: z.nullable(z.int()),
    release_labels: z.array(z.string()),
    nodes: z.array(nodeSummarySchema),
    required_input_variables: z.record(z.string(), z.string()),
    external_ids: z.array(externalIdSchema),
  })
  .clone()
  .register(z.globalRegistry, { id: 'CreateWorkflowResponse' });

const workflowSummarySchema = z.object({
  id: z.int(),
  name: z.string(),
  workspace_id: z.int(),
  folder_id: z.nullable(z.int()),
  is_deleted: z.boolean(),
  user_id: z.nullable(z.int()),
  latest_version_number: z.nullable(z.int()),
  release_labels: z.array(z.string()),
  external_ids: z.array(externalIdSchema),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
});

/** GET /workflows/{workflow_id_or_name}: a version with its nodes and edges. */
export const workflowVersionViewSchema = z
  .object({
    success: z.literal(true),
    workflow_id: z.int(),
    workflow_name: z.string(),
    /** What the Python SDK reads (`["workflow"]["id"]`). */
    workflow: workflowSummarySchema,
    version: z.int(),
    version_number: z.int(),
    workflow_version_id: z.int(),
    commit_message: z.nullable(z.string()),
    required_input_variables: z.record(z.string(), z.string()),
    release_labels: z.array(z.string()),
    created_at: isoTimestamp,
    nodes: z.array(
      z.extend(workflowNodeSchema, {
        id: z.string(),
        workflow_version_id: z.int(),
        dependencies: z.array(z.string()),
      }),
    ),
    edges: z.array(
      z.extend(workflowEdgeSchema, { id: z.string(), conditionals: z.array(edgeConditionalSchema) }),
    ),
    external_ids: z.array(externalIdSchema),
  })
  .clone()
  .register(z.globalRegistry, { id: 'WorkflowVersion' });

export const workflowLabelsViewSchema = z.object({
  success: z.literal(true),
  release_labels: z.array(
    z.object({
      release_label: z.string(),
      release_label_id: z.int(),
      workflow_version_id: z.int(),
      workflow_version_number: z.int(),
    }),
  ),
});

/** An item of GET /workflows. */
export const workflowListItemSchema = workflowSummarySchema
  .clone()
  .register(z.globalRegistry, { id: 'WorkflowListItem' });
export const workflowListSchema = pageOf(workflowListItemSchema);
