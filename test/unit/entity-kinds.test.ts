import { describe, expect, it } from 'vitest';
import { groupFromItem } from '#shared/datasets/repository.ts';
import {
  ENTITY_KINDS,
  EXTERNAL_ID_TYPES,
  FOLDER_TYPES,
  KIND_NAMES,
  kindOfExternalId,
  kindOfFolderType,
  kindSpec,
  PERMISSION_ONLY_TYPES,
} from '#shared/entities/kinds.ts';
import { requirePermission } from '#shared/entities/permissions.ts';
import { EXTERNAL_ID_ENTITIES } from '#shared/external-ids/external-ids.ts';
import { KIND_PLACEMENT } from '#shared/folder-contents/placement.ts';
import { getFolderItem } from '#shared/folders/require.ts';
import { ENTITY_TYPES } from '#shared/platform/auth-context.ts';
import { AppError } from '#shared/platform/errors.ts';
import { PROMPT_KIND } from '#shared/prompts/kind.ts';
import { REPORT_MAPPINGS } from '#shared/reports/external-ids.ts';
import { reportFromItem } from '#shared/reports/head.ts';
import { WORKFLOW_KIND } from '#shared/workflows/registry.ts';

/** The one registry of entity kinds and the vocabularies derived from it. */
describe('entity kinds', () => {
  it('keeps the permission types in the order keys were issued with (the list only grows at its end)', () => {
    expect(ENTITY_TYPES).toEqual([
      'request_logs',
      'prompts',
      'datasets',
      'workflows',
      'reports',
      'tools',
      'skills',
      'folders',
      'webhooks',
      'provider_keys',
      'monitors',
      'env_vars',
    ]);
  });

  it('names every permission type: a kind needs it, or it is a permission-only type', () => {
    const fromKinds = KIND_NAMES.map((kind) => ENTITY_KINDS[kind].permission);
    expect(new Set([...fromKinds, ...PERMISSION_ONLY_TYPES])).toEqual(new Set(ENTITY_TYPES));
    for (const type of PERMISSION_ONLY_TYPES) expect(fromKinds).not.toContain(type);
  });

  it('lists each external-id type and folder type once, each naming its kind back', () => {
    expect(new Set(EXTERNAL_ID_TYPES).size).toBe(EXTERNAL_ID_TYPES.length);
    expect(new Set(FOLDER_TYPES).size).toBe(FOLDER_TYPES.length);
    for (const type of EXTERNAL_ID_TYPES) expect(kindSpec(kindOfExternalId(type)).externalId).toBe(type);
    for (const type of FOLDER_TYPES)
      expect(kindSpec(kindOfFolderType(type) ?? 'folder').folderType).toBe(type);
    expect(kindOfFolderType('NOTEBOOK')).toBeUndefined();
  });

  it('derives the external-id types the mappings store', () => {
    expect(EXTERNAL_ID_ENTITIES).toEqual([
      'prompt_template',
      'dataset_group',
      'tool',
      'report',
      'workflow',
      'skill_collection',
      'folder',
    ]);
  });

  it("derives PromptLayer's folder types plus TOOL and SKILL_COLLECTION", () => {
    expect([...FOLDER_TYPES].sort()).toEqual(
      [
        'FOLDER',
        'PROMPT',
        'SNIPPET',
        'WORKFLOW',
        'DATASET',
        'REPORT',
        'AB_TEST',
        'INPUT_VARIABLE_SET',
        'TOOL',
        'SKILL_COLLECTION',
      ].sort(),
    );
  });

  it('gives every kind that can live in a folder the attribute its folder is stored under', () => {
    for (const kind of KIND_NAMES) {
      const spec = kindSpec(kind);
      if (spec.folderType && !spec.unsupported) expect(spec.folderAttribute, kind).toBeDefined();
    }
  });

  it("records the attribute each feature's stored head really keeps its folder in", () => {
    const stored = (kind: keyof typeof ENTITY_KINDS) => ({ [kindSpec(kind).folderAttribute ?? '']: 12 });
    expect(PROMPT_KIND.headFields(stored('prompt')).folder_id).toBe(12);
    expect(WORKFLOW_KIND.headFields(stored('workflow')).folder_id).toBe(12);
    expect(groupFromItem(stored('dataset')).folderId).toBe(12);
    expect(reportFromItem(stored('report')).folderId).toBe(12);
  });

  it("is what the features' stores use for external ids and id counters", () => {
    expect(PROMPT_KIND.externalIdEntity).toBe(ENTITY_KINDS.prompt.externalId);
    expect(PROMPT_KIND.ids.entity).toBe(ENTITY_KINDS.prompt.idKind);
    expect(WORKFLOW_KIND.externalIdEntity).toBe(ENTITY_KINDS.workflow.externalId);
    expect(WORKFLOW_KIND.ids.entity).toBe(ENTITY_KINDS.workflow.idKind);
    expect(REPORT_MAPPINGS.entity).toBe(ENTITY_KINDS.report.externalId);
  });

  it('names a kind with external ids as its type in words, as the external-id messages do', () => {
    for (const type of EXTERNAL_ID_TYPES)
      expect(kindSpec(kindOfExternalId(type)).noun).toBe(type.replaceAll('_', ' '));
  });

  it('places every kind that can live in a folder; those without entities here are none; ids no entity can have find none', async () => {
    const unplaced = ['folder', 'ab_test', 'input_variable_set'];
    expect(Object.keys(KIND_PLACEMENT).sort()).toEqual(
      KIND_NAMES.filter((kind) => !unplaced.includes(kind)).sort(),
    );
    expect(kindSpec('ab_test').unsupported && kindSpec('input_variable_set').unsupported).toBe(true);
    expect(KIND_PLACEMENT.skill_collection.firstKey(1, 1)).toBeUndefined();
    // Ids no entity can have are answered without asking the table.
    for (const kind of ['prompt', 'snippet', 'dataset', 'report', 'workflow', 'tool'] as const) {
      expect(KIND_PLACEMENT[kind].firstKey(1, 0)).toBeUndefined();
      expect(KIND_PLACEMENT[kind].firstKey(1, '1')).toBeUndefined();
    }
    expect(await getFolderItem(1, 0)).toBeUndefined();
  });
});

describe('requirePermission', () => {
  const forbiddenFor = (run: () => void) => {
    try {
      run();
    } catch (error) {
      return error instanceof AppError
        ? { status: error.status, code: error.code, message: error.message }
        : error;
    }
    return undefined;
  };

  it("checks the kind's permission type: edit implies read", () => {
    expect(
      forbiddenFor(() => requirePermission({ permissions: { prompts: 'edit' } }, 'snippet', 'read')),
    ).toBeUndefined();
    expect(
      forbiddenFor(() => requirePermission({ permissions: { prompts: 'edit' } }, 'prompt', 'edit')),
    ).toBeUndefined();
    expect(
      forbiddenFor(() => requirePermission({ permissions: { skills: 'read' } }, 'skill_collection', 'read')),
    ).toBeUndefined();
  });

  it('throws the house 403 naming the permission type', () => {
    expect(
      forbiddenFor(() => requirePermission({ permissions: { datasets: 'read' } }, 'dataset', 'edit')),
    ).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'This API key may not edit datasets',
    });
    expect(
      forbiddenFor(() => requirePermission({ permissions: { prompts: 'edit' } }, 'report', 'read')),
    ).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'This API key may not read reports',
    });
  });
});
