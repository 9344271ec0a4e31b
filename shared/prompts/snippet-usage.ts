import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { batchWriteItems } from '#shared/platform/batch.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { documentClient, table } from '#shared/platform/dynamo.ts';
import { notFound } from '#shared/platform/errors.ts';
import { templatePk } from './keys.ts';
import { findHead } from './lookup.ts';
import { getHead } from './repository.ts';
import type { SnippetUse } from './snippets.ts';

/**
 * Which templates and versions reference a snippet: an index written at publish, read with one Query.
 *
 *   W#<ws>#P#<snippet name>  U#<template id, 16 digits>#<version, 10 digits>
 *       prompt_id, prompt_name, version_number, snippet_versions (the snippet versions it resolved to)
 *
 * The items live in the snippet's own partition under `U#`, which sorts below the versions (`V#`) and
 * the head (`~HEAD`): every read of a template queries `SK >= 'V#'`, so none ever meets them. A version
 * is immutable, so its items never change; they are written after the version and its head (a crash in
 * between leaves that version out of the usage, never a version that does not exist). Only a
 * template's own references are indexed (a snippet used through another snippet is that snippet's
 * usage), and only templates' (a workflow's inline template has no version to name).
 */
const USAGE_PREFIX = 'U#';
const HEAD_READS = 16;

const usageSk = (templateId: number, version: number) =>
  `${USAGE_PREFIX}${String(templateId).padStart(16, '0')}#${String(version).padStart(10, '0')}`;

/** Records the snippets a new version references (its own references, as resolved at publish). */
export async function recordSnippetUsage(
  workspaceId: number,
  version: { prompt_id: number; prompt_name: string; number: number },
  references: readonly SnippetUse[],
): Promise<void> {
  const bySnippet = new Map<string, Set<number>>();
  for (const { prompt_name, version: resolved } of references) {
    const versions = bySnippet.get(prompt_name) ?? new Set<number>();
    versions.add(resolved);
    bySnippet.set(prompt_name, versions);
  }
  if (bySnippet.size === 0) return;
  await batchWriteItems(
    [...bySnippet].map(([snippet, versions]) => ({
      PutRequest: {
        Item: {
          PK: templatePk(workspaceId, snippet),
          SK: usageSk(version.prompt_id, version.number),
          prompt_id: version.prompt_id,
          prompt_name: version.prompt_name,
          version_number: version.number,
          snippet_versions: [...versions].sort((a, b) => a - b),
        },
      },
    })),
  );
}

interface UsageItem {
  prompt_id: number;
  prompt_name: string;
  version_number: number;
  snippet_versions: number[];
}

/**
 * GET /prompt-templates/{identifier}/snippet-usage: the template versions whose own text references
 * the snippet (with `snippetVersion`, those that resolved to that version of it), and the release
 * labels on those versions. One Query of the index, then one GetItem per referencing template for its
 * labels (16 at a time).
 */
export async function getSnippetUsage(workspaceId: number, identifier: string, snippetVersion?: number) {
  const snippet = await findHead(workspaceId, identifier);
  if (!snippet) throw notFound(`Prompt template ${identifier} not found`);
  const items: UsageItem[] = [];
  const pages = paginateQuery(
    { client: documentClient() },
    {
      TableName: table(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :usage)',
      ExpressionAttributeValues: { ':pk': templatePk(workspaceId, snippet.name), ':usage': USAGE_PREFIX },
    },
  );
  for await (const page of pages) items.push(...((page.Items ?? []) as UsageItem[]));
  const matching = items.filter(
    (item) => snippetVersion === undefined || item.snippet_versions.includes(snippetVersion),
  );

  // In the index's order: by template id, then version.
  const byTemplate = new Map<
    number,
    { prompt_registry_id: number; prompt_name: string; version_numbers: number[] }
  >();
  for (const item of matching) {
    const entry = byTemplate.get(item.prompt_id) ?? {
      prompt_registry_id: item.prompt_id,
      prompt_name: item.prompt_name,
      version_numbers: [],
    };
    entry.version_numbers.push(item.version_number);
    byTemplate.set(item.prompt_id, entry);
  }
  const usage = [...byTemplate.values()];
  const labelUsage: { prompt_registry_id: number; prompt_name: string; label_name: string }[][] = [];
  await forEachLimited(usage, HEAD_READS, async (entry, i) => {
    const head = await getHead(workspaceId, entry.prompt_name);
    labelUsage[i] = Object.entries(head?.labels ?? {})
      .filter(([, label]) => entry.version_numbers.includes(label.version_number))
      .map(([label]) => ({
        prompt_registry_id: entry.prompt_registry_id,
        prompt_name: entry.prompt_name,
        label_name: label,
      }))
      .sort((a, b) => a.label_name.localeCompare(b.label_name));
  });
  const labels = labelUsage.flat();
  return {
    success: true as const,
    message: 'Snippet usage retrieved successfully',
    snippet_name: snippet.name,
    snippet_usage: usage,
    total_prompts_using_snippet: usage.length,
    label_usage: labels,
    total_labels_using_snippet: labels.length,
  };
}
