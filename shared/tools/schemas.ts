import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { MAX_EMAIL_LENGTH } from '#shared/platform/auth-context.ts';
import { storedJsonBytes } from '#shared/platform/json.ts';
import { isoTimestamp, pageFields } from '#shared/platform/response-schemas.ts';
import { jsonObject, ownKeysRecord, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
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
  .check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or hyphens'));

/** A JSON Schema object of the tool's parameters: `type: "object"`, named properties, `required` among them. */
export const toolParametersSchema = z
  .looseObject({
    type: z.literal('object'),
    properties: z.optional(
      ownKeysRecord(wellFormedString().check(z.minLength(1), z.maxLength(255)), jsonObject).check(
        z.refine((properties) => Object.keys(properties).length <= MAX_TOOL_PARAMETERS, {
          message: `at most ${MAX_TOOL_PARAMETERS} properties`,
        }),
      ),
    ),
    required: z.optional(z.array(z.string().check(z.maxLength(255))).check(z.maxLength(MAX_TOOL_PARAMETERS))),
  })
  .check(
    z.superRefine((parameters, ctx) => {
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
    }),
  );

/** A tool in the function-calling format: its name, what it does, its parameters. */
export const toolDefinitionSchema = z
  .strictObject({
    name: functionNameSchema,
    description: z.optional(wellFormedString().check(z.maxLength(4096))),
    parameters: toolParametersSchema,
    strict: z.optional(z.boolean()),
  })
  .check(
    z.superRefine((definition, ctx) => {
      if (storedJsonBytes(definition) > MAX_TOOL_DEFINITION_BYTES) {
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: `a tool definition is at most ${MAX_TOOL_DEFINITION_BYTES} bytes as JSON`,
        });
      }
    }),
  )
  .clone()
  .register(z.globalRegistry, { id: 'ToolDefinition' });
export type ToolDefinition = z.output<typeof toolDefinitionSchema>;

export const toolNameSchema = wellFormedString().check(z.minLength(1), z.maxLength(255));
/** `{identifier}`: a tool's name, or its id as digits. */
export const toolIdentifierSchema = wellFormedString().check(z.minLength(1), z.maxLength(1024));
const commitMessageSchema = wellFormedString().check(z.maxLength(2000));
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
    code: z
      .string()
      .check(z.maxLength(MAX_TOOL_CODE_LENGTH, `must be at most ${MAX_TOOL_CODE_LENGTH} characters`)),
  })
  .clone()
  .register(z.globalRegistry, { id: 'ToolExecution' });
export type ToolExecution = z.output<typeof toolExecutionSchema>;
const executionSchema = z.nullish(toolExecutionSchema);

/** POST /api/public/v2/tool-registry. */
export const createToolBodySchema = z.object({
  name: toolNameSchema,
  tool_definition: toolDefinitionSchema,
  description: z.nullish(wellFormedString().check(z.maxLength(4096))),
  folder_id: z.nullish(z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER))),
  commit_message: z.nullish(commitMessageSchema),
  external_ids: z.nullish(publishExternalIdsSchema),
  execution: executionSchema,
});
export type CreateToolBody = z.output<typeof createToolBodySchema>;

/** POST /api/public/v2/tool-registry/{identifier}/versions. */
export const createToolVersionBodySchema = z.object({
  tool_definition: toolDefinitionSchema,
  commit_message: z.nullish(commitMessageSchema),
  release_labels: z.nullish(z.array(labelNameSchema).check(z.maxLength(MAX_RELEASE_LABELS))),
  execution: executionSchema,
});
export type CreateToolVersionBody = z.output<typeof createToolVersionBodySchema>;

export const getToolQuerySchema = z.object({ ...versionSelectorQuery }).check(z.superRefine(versionOrLabel));

/** GET /api/public/v2/tool-registry: the filters of every versioned-entity list; newest update first. */
export const listToolsQuerySchema = headListQuerySchema(
  { created_by_email: z.optional(z.string().check(z.maxLength(MAX_EMAIL_LENGTH))) },
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
    description: z.nullable(z.string()),
    workspace_id: z.int(),
    folder_id: z.nullable(z.int()),
    latest_version_number: z.int(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    external_ids: z.array(externalIdSchema),
  })
  .clone()
  .register(z.globalRegistry, { id: 'ToolRegistryEntry' });

export const toolVersionSchema = z
  .object({
    id: z.int(),
    tool_id: z.int(),
    version_number: z.int(),
    tool_definition: toolDefinitionSchema,
    commit_message: z.nullable(z.string()),
    release_labels: z.array(z.string()),
    /** The tool's body, or null for a definition only. */
    execution: z.nullable(toolExecutionSchema),
    created_at: isoTimestamp,
  })
  .clone()
  .register(z.globalRegistry, { id: 'ToolVersion' });

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
  tool_registry: z.extend(toolRegistryEntrySchema, {
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
