import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import { conflict, notFound } from '#shared/platform/errors.ts';
import { deleteItem, getItem } from '#shared/platform/items.ts';
import { TtlCache } from '#shared/platform/ttl-cache.ts';

/**
 * A workspace's own prices for models (negotiated rates, self-hosted models), in USD per million tokens.
 * One item per model in one partition per workspace, `W#<ws>#MP` / `<model, lower case>`, so the whole
 * set is one Query: a workspace holds at most MAX_OVERRIDES. A log's model matches an override ignoring
 * case; an override with a provider applies only to logs of that provider.
 */
export const MAX_OVERRIDES = 200;

export interface ModelPriceOverride {
  model: string;
  provider: string | null;
  /** USD per million tokens; the optional parts are filled in (cached input and cache write from input, reasoning from output). */
  usd_per_million_tokens: {
    input: number;
    cached_input: number;
    cache_write: number;
    output: number;
    reasoning: number;
  };
  updated_at: number;
}

const partition = (workspaceId: number) => `W#${workspaceId}#MP`;
const overrideKey = (workspaceId: number, model: string) => ({
  PK: partition(workspaceId),
  SK: model.toLowerCase(),
});

const toOverride = (item: Record<string, unknown>): ModelPriceOverride => ({
  model: item.model as string,
  provider: (item.provider as string | null) ?? null,
  usd_per_million_tokens: item.prices as ModelPriceOverride['usd_per_million_tokens'],
  updated_at: item.updatedAt as number,
});

/** Every override of the workspace, by model (lower case). */
export async function listOverrides(workspaceId: number): Promise<Map<string, ModelPriceOverride>> {
  const { Items } = await dynamo.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': partition(workspaceId) },
      ConsistentRead: true,
    }),
  );
  return new Map((Items ?? []).map((item) => [item.SK as string, toOverride(item)]));
}

export async function getOverride(workspaceId: number, model: string): Promise<ModelPriceOverride> {
  const item = await getItem(overrideKey(workspaceId, model));
  if (!item) throw notFound(`No price override for model ${model}`);
  return toOverride(item);
}

/** Sets (creates or replaces) the override of a model; a new one beyond MAX_OVERRIDES is a 409. */
export async function putOverride(
  workspaceId: number,
  override: Omit<ModelPriceOverride, 'updated_at'>,
): Promise<ModelPriceOverride> {
  const existing = await listOverrides(workspaceId);
  if (!existing.has(override.model.toLowerCase()) && existing.size >= MAX_OVERRIDES)
    throw conflict(`A workspace has at most ${MAX_OVERRIDES} model price overrides; delete one first`);
  const updated_at = Date.now();
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...overrideKey(workspaceId, override.model),
        model: override.model,
        provider: override.provider,
        prices: override.usd_per_million_tokens,
        updatedAt: updated_at,
      },
    }),
  );
  cachedOverrides.invalidate(String(workspaceId));
  return { ...override, updated_at };
}

export async function deleteOverride(workspaceId: number, model: string): Promise<void> {
  const deleted = await deleteItem(overrideKey(workspaceId, model), 'attribute_exists(PK)');
  cachedOverrides.invalidate(String(workspaceId));
  if (!deleted) throw notFound(`No price override for model ${model}`);
}

/**
 * How long a container prices logs with the overrides it read: one Query per workspace per minute at
 * most on the logging path, whatever the traffic. An override set through another function (another
 * container) applies to logs within this time; a recompute applies it to logs already stored.
 */
export const OVERRIDE_CACHE_TTL_MS = 60_000;
const MAX_CACHED_WORKSPACES = 1_000;

const cachedOverrides = new TtlCache<Promise<Map<string, ModelPriceOverride>>>(
  OVERRIDE_CACHE_TTL_MS,
  MAX_CACHED_WORKSPACES,
);

/** The workspace's overrides as the logging path reads them: through the cache above. */
export function workspaceOverrides(workspaceId: number): Promise<Map<string, ModelPriceOverride>> {
  const key = String(workspaceId);
  const cached = cachedOverrides.get(key);
  if (cached) return cached;
  const since = cachedOverrides.generation;
  const loading = listOverrides(workspaceId);
  cachedOverrides.set(key, loading, [key], { since });
  // A failed read is not kept: the next log reads again.
  loading.catch(() => {
    if (cachedOverrides.get(key) === loading) cachedOverrides.invalidate(key);
  });
  return loading;
}

/** The override that prices a log of `model` from `provider`, if any. */
export function overrideFor(
  overrides: ReadonlyMap<string, ModelPriceOverride>,
  model: string,
  provider: string,
): ModelPriceOverride | undefined {
  const override = overrides.get(model.toLowerCase());
  return override &&
    (override.provider === null || override.provider.toLowerCase() === provider.toLowerCase())
    ? override
    : undefined;
}

/** Forgets cached overrides (tests). */
export const resetOverrideCache = () => cachedOverrides.clear();
