import * as z from 'zod';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { MAX_EMAIL_LENGTH } from '#shared/platform/auth-context.ts';
import { storedJsonBytes } from '#shared/platform/json.ts';
import { isoTimestamp, pageFields } from '#shared/platform/response-schemas.ts';
import { jsonObject, ownKeysRecord, wellFormedString } from '#shared/platform/schemas.ts';
import {
  headListQuerySchema,
  labelNameSchema,
  MAX_RELEASE_LABELS,
  publishExternalIdsSchema,
  versionOrLabel,
  versionSelectorQuery,
} from '#shared/versions/schemas.ts';

/** Request and response schemas of the tool registry routes (field names from the reference). */

/** At most this many parameters per tool, and this many bytes of definition as JSON. */
export const MAX_TOOL_PARAMETERS = 200;
export const MAX_TOOL_DEFINITION_BYTES = 64_000;

/** A function name as the LLM providers accept it (OpenAI: letters, digits, `_` and `-`, at most 64). */
const functionNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or hyphens');

/** A JSON Schema object of the tool's parameters: `type: "object"`, named properties, `required` among them. */
export const toolParametersSchema = z
  .looseObject({
    type: z.literal('object'),
    properties: ownKeysRecord(wellFormedString().min(1).max(255), jsonObject)
      .refine((properties) => Object.keys(properties).length <= MAX_TOOL_PARAMETERS, {
        message: `at most ${MAX_TOOL_PARAMETERS} properties`,
      })
      .optional(),
    required: z.array(z.string().max(255)).max(MAX_TOOL_PARAMETERS).optional(),
  })
  .superRefine((parameters, ctx) => {
    const names = new Set(Object.keys(parameters.properties ?? {}));
    for (const [index, name] of (parameters.required ?? []).entries()) {
      if (!names.has(name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['required', index],
          message: `required names "${name}", which is not among the properties`,
        });
      }
    }
    if (new Set(parameters.required).size !== (parameters.required ?? []).length) {
      ctx.addIssue({ code: 'custom', path: ['required'], message: 'required repeats a name' });
    }
  });

/** A tool in the function-calling format: its name, what it does, its parameters. */
export const toolDefinitionSchema = z
  .strictObject({
    name: functionNameSchema,
    description: wellFormedString().max(4096).optional(),
    parameters: toolParametersSchema,
    strict: z.boolean().optional(),
  })
  .superRefine((definition, ctx) => {
    if (storedJsonBytes(definition) > MAX_TOOL_DEFINITION_BYTES) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `a tool definition is at most ${MAX_TOOL_DEFINITION_BYTES} bytes as JSON`,
      });
    }
  })
  .meta({ id: 'ToolDefinition' });
export type ToolDefinition = z.output<typeof toolDefinitionSchema>;

export const toolNameSchema = wellFormedString().min(1).max(255);
/** `{identifier}`: a tool's name, or its id as digits. */
export const toolIdentifierSchema = wellFormedString().min(1).max(1024);
const commitMessageSchema = wellFormedString().max(2000);
/** A tool body's code, in characters (as a CODE_EXECUTION node's). */
export const MAX_TOOL_CODE_LENGTH = 100_000;

/**
 * A tool's body, run in the sandbox by test-execute (docs/tools.md#tool-bodies): the body of a function
 * of `args` (the LLM's arguments). `python` is stored as given and fails when it is run.
 */
export const toolExecutionSchema = z
  .strictObject({
    type: z.literal('code'),
    language: z.enum(['python', 'javascript']),
    code: z.string().max(MAX_TOOL_CODE_LENGTH, `must be at most ${MAX_TOOL_CODE_LENGTH} characters`),
  })
  .meta({ id: 'ToolExecution' });
export type ToolExecution = z.output<typeof toolExecutionSchema>;
const executionSchema = toolExecutionSchema.nullish();

/** POST /api/public/v2/tool-registry. */
export const createToolBodySchema = z.object({
  name: toolNameSchema,
  tool_definition: toolDefinitionSchema,
  description: wellFormedString().max(4096).nullish(),
  folder_id: z.int().positive().max(Number.MAX_SAFE_INTEGER).nullish(),
  commit_message: commitMessageSchema.nullish(),
  external_ids: publishExternalIdsSchema.nullish(),
  execution: executionSchema,
});
export type CreateToolBody = z.output<typeof createToolBodySchema>;

/** POST /api/public/v2/tool-registry/{identifier}/versions. */
export const createToolVersionBodySchema = z.object({
  tool_definition: toolDefinitionSchema,
  commit_message: commitMessageSchema.nullish(),
  release_labels: z.array(labelNameSchema).max(MAX_RELEASE_LABELS).nullish(),
  execution: executionSchema,
});
export type CreateToolVersionBody = z.output<typeof createToolVersionBodySchema>;

export const getToolQuerySchema = z.object({ ...versionSelectorQuery }).superRefine(versionOrLabel);

/** GET /api/public/v2/tool-registry: the filters of every versioned-entity list; newest update first. */
export const listToolsQuerySchema = headListQuerySchema(
  { created_by_email: z.string().max(MAX_EMAIL_LENGTH).optional() },
  { defaultPerPage: 100 },
);
export type ListToolsQuery = z.output<typeof listToolsQuerySchema>;

// ---------------------------------------------------------------------------------------------------------
// Responses

/** A tool as lists show it (also `tool_registry` of the create and get answers). */
export const toolRegistryEntrySchema = z
  .object({
    id: z.int(),
    name: z.string(),
    description: z.string().nullable(),
    workspace_id: z.int(),
    folder_id: z.int().nullable(),
    latest_version_number: z.int(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    external_ids: z.array(externalIdSchema),
  })
  .meta({ id: 'ToolRegistryEntry' });

export const toolVersionSchema = z
  .object({
    id: z.int(),
    tool_id: z.int(),
    version_number: z.int(),
    tool_definition: toolDefinitionSchema,
    commit_message: z.string().nullable(),
    release_labels: z.array(z.string()),
    /** The tool's body, or null for a definition only. */
    execution: toolExecutionSchema.nullable(),
    created_at: isoTimestamp,
  })
  .meta({ id: 'ToolVersion' });

export const toolLabelSchema = z.object({
  id: z.int(),
  name: z.string(),
  tool_version_id: z.int(),
  version_number: z.int(),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
});

/** POST /api/public/v2/tool-registry (201). */
export const createToolResponseSchema = z.object({
  success: z.literal(true),
  tool_registry: toolRegistryEntrySchema,
  version: toolVersionSchema,
  external_ids: z.array(externalIdSchema),
});

/** GET /api/public/v2/tool-registry/{identifier}. */
export const getToolResponseSchema = z.object({
  success: z.literal(true),
  tool_registry: toolRegistryEntrySchema.extend({
    labels: z.array(toolLabelSchema),
    version: toolVersionSchema,
    tool_definition: toolDefinitionSchema,
  }),
});

/** POST /api/public/v2/tool-registry/{identifier}/versions (201). */
export const createToolVersionResponseSchema = z.object({
  success: z.literal(true),
  version: toolVersionSchema,
});

/** GET /api/public/v2/tool-registry. */
export const listToolsResponseSchema = z.object({
  success: z.literal(true),
  tool_registries: z.array(toolRegistryEntrySchema),
  ...pageFields,
});
