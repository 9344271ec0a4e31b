import { conflict, invalid, notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { masterKey, seal, unseal } from '#shared/platform/master-key.ts';
import { isoTimestamp } from '#shared/platform/response-schemas.ts';
import { toIso } from '#shared/platform/time.ts';
import * as z from '#shared/platform/zod.ts';
import {
  deleteEnvVar,
  type EnvVarRecord,
  type EnvVarScope,
  getEnvVar,
  insertEnvVar,
  listEnvVars,
  updateEnvVarValue,
} from './repository.ts';

export type { EnvVarScope } from './repository.ts';

/**
 * Environment variables (/api/public/v2/env-vars and /api/public/v2/tool-registry/{identifier}/env-vars):
 * secrets a workspace, or one tool, gives the code it runs in the sandbox (`process.env.KEY`). Values
 * are write-only: sealed at rest with a key derived from the master key for `env-var:<ws>:<scope>:<id>`
 * (as provider keys are), never in an answer, an error or a log line; an answer shows at most the last
 * four characters of a value of at least MIN_LENGTH_FOR_SUFFIX characters. docs/env-vars.md.
 */
export const MAX_ENV_VARS_PER_SCOPE = 100;
export const MAX_ENV_VAR_VALUE_LENGTH = 8192;
export const SUFFIX_LENGTH = 4;
/** Shorter values show no suffix: four characters of a six-character value are most of it. */
export const MIN_LENGTH_FOR_SUFFIX = 12;

const keySchema = z
  .string()
  .check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(255, 'must be at most 255 characters'),
    z.regex(
      /^[A-Za-z_][A-Za-z0-9_]*$/,
      'must start with a letter or underscore and hold only letters, digits and underscores',
    ),
  );

// Messages of their own: zod's would not echo a value, and these never will.
const valueSchema = z
  .string({ error: 'must be a string' })
  .check(z.maxLength(MAX_ENV_VAR_VALUE_LENGTH, `must be at most ${MAX_ENV_VAR_VALUE_LENGTH} characters`));

export const createEnvVarBodySchema = z.strictObject({ key: keySchema, value: z.optional(valueSchema) });
export type CreateEnvVarBody = z.output<typeof createEnvVarBodySchema>;

export const updateEnvVarBodySchema = z.strictObject({
  value: valueSchema.check(z.minLength(1, 'must not be empty')),
});
export type UpdateEnvVarBody = z.output<typeof updateEnvVarBodySchema>;

export const envVarViewSchema = z
  .object({
    id: z.int(),
    key: z.string(),
    /** The value's last four characters; null for an empty value or one shorter than 12 characters. */
    value_suffix: z.nullable(z.string()),
    is_empty: z.boolean(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    workspace_id: z.optional(z.int()),
    tool_registry_id: z.optional(z.int()),
  })
  .clone()
  .register(z.globalRegistry, { id: 'EnvVar' });
export type EnvVarView = z.infer<typeof envVarViewSchema>;

export const workspaceEnvVarAnswerSchema = z.object({
  success: z.literal(true),
  workspace_env_var: envVarViewSchema,
});
export const workspaceEnvVarListSchema = z.object({
  success: z.literal(true),
  workspace_env_vars: z.array(envVarViewSchema),
});
export const toolEnvVarAnswerSchema = z.object({ success: z.literal(true), tool_env_var: envVarViewSchema });
export const toolEnvVarListSchema = z.object({
  success: z.literal(true),
  tool_env_vars: z.array(envVarViewSchema),
});

const purpose = (scope: EnvVarScope, id: number) =>
  `env-var:${scope.workspaceId}:${scope.toolId === undefined ? 'workspace' : `tool-${scope.toolId}`}:${id}`;

const suffixOf = (value: string) =>
  value.length >= MIN_LENGTH_FOR_SUFFIX ? value.slice(-SUFFIX_LENGTH) : null;

function toView(record: EnvVarRecord): EnvVarView {
  return {
    id: record.id,
    key: record.key,
    value_suffix: record.valueSuffix,
    is_empty: record.valueSealed === null,
    created_at: toIso(record.createdAt),
    updated_at: toIso(record.updatedAt),
    ...(record.toolId === null ? { workspace_id: record.workspaceId } : { tool_registry_id: record.toolId }),
  };
}

const scopeNoun = (scope: EnvVarScope) => (scope.toolId === undefined ? 'this workspace' : 'this tool');
const varNotFound = (id: number) => notFound(`Environment variable ${id} not found`);

async function sealed(scope: EnvVarScope, id: number, value: string) {
  return { valueSealed: await seal(purpose(scope, id), value), valueSuffix: suffixOf(value) };
}

export async function createEnvVar(scope: EnvVarScope, body: CreateEnvVarBody, now = Date.now()) {
  const id = await nextId('env_var');
  const value = body.value ?? '';
  const record: EnvVarRecord = {
    id,
    workspaceId: scope.workspaceId,
    toolId: scope.toolId ?? null,
    key: body.key,
    ...(value === '' ? { valueSealed: null, valueSuffix: null } : await sealed(scope, id, value)),
    createdAt: now,
    updatedAt: now,
  };
  const outcome = await insertEnvVar(scope, record, MAX_ENV_VARS_PER_SCOPE);
  if (outcome === 'key_taken')
    throw conflict(`An environment variable named ${body.key} already exists in ${scopeNoun(scope)}`);
  if (outcome === 'full')
    throw invalid(
      ['body', 'key'],
      `${scopeNoun(scope)} already has ${MAX_ENV_VARS_PER_SCOPE} environment variables`,
    );
  return toView(record);
}

/** The scope's variables, by key. */
export async function listEnvVarViews(scope: EnvVarScope): Promise<EnvVarView[]> {
  const records = await listEnvVars(scope);
  return records.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(toView);
}

export async function updateEnvVar(scope: EnvVarScope, id: number, body: UpdateEnvVarBody, now = Date.now()) {
  const current = await getEnvVar(scope, id);
  if (!current) throw varNotFound(id);
  const record = await updateEnvVarValue(scope, current, await sealed(scope, id, body.value), now);
  if (!record) throw varNotFound(id);
  return toView(record);
}

export async function removeEnvVar(scope: EnvVarScope, id: number) {
  const record = await getEnvVar(scope, id);
  if (!record || !(await deleteEnvVar(scope, record, MAX_ENV_VARS_PER_SCOPE))) throw varNotFound(id);
  return { success: true as const };
}

/**
 * The values of the scope's set variables, opened, by key (placeholders left out: an unset variable
 * is absent, as in a shell). A value that does not open (the master key was replaced) is left out too.
 */
export async function openEnvVars(scope: EnvVarScope): Promise<Record<string, string>> {
  const records = (await listEnvVars(scope)).filter((record) => record.valueSealed !== null);
  if (records.length === 0) return {};
  // A master key that cannot be read is a fault (the caller retries), not a value that does not open.
  await masterKey();
  const entries: [string, string][] = [];
  for (const record of records) {
    try {
      entries.push([record.key, await unseal(purpose(scope, record.id), record.valueSealed as string)]);
    } catch {
      // Sealed under a replaced master key or altered: unset until the workspace sets it again.
    }
  }
  // fromEntries defines own properties: a variable named __proto__ is a variable, not a prototype.
  return Object.fromEntries(entries);
}

/**
 * The environment code of a workspace runs with: the workspace's variables, and for a tool's code its
 * own variables over them (a tool's variable wins over a workspace variable of the same key).
 */
export async function runEnvironment(workspaceId: number, toolId?: number): Promise<Record<string, string>> {
  const [workspace, tool] = await Promise.all([
    openEnvVars({ workspaceId }),
    toolId === undefined ? {} : openEnvVars({ workspaceId, toolId }),
  ]);
  return { ...workspace, ...tool };
}
