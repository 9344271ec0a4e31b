import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { isoTimestamp, jsonObject } from '#shared/platform/response-schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { DATASET_JOB_STATUSES } from './list.ts';

/** Response schemas of the dataset routes (field for field as list.ts, rows.ts and the handlers build them). */

export const datasetViewSchema = z
  .object({
    id: z.int(),
    dataset_group_id: z.int(),
    version_number: z.int().clone().register(z.globalRegistry, { description: '-1 for a draft' }),
    column_names: z.array(z.string()),
    filter_params: z.nullable(jsonObject).clone().register(z.globalRegistry, {
      description: 'The params of a from-filter-params version; null otherwise',
    }),
    filter_params_truncated: z.boolean(),
    is_deleted: z.boolean(),
    user_id: z.int(),
    row_count: z.int(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    dataset_group: z.object({
      id: z.int(),
      name: z.string(),
      workspace_id: z.int(),
      is_deleted: z.boolean(),
    }),
    external_ids: z.array(externalIdSchema),
    job_status: z.nullable(z.enum(DATASET_JOB_STATUSES)).clone().register(z.globalRegistry, {
      description:
        'The last job that built this dataset (from-file, from-filter-params, a draft copy): RUNNING until it ends; null when no job built it',
    }),
    job_error: z.nullable(z.string()).clone().register(z.globalRegistry, {
      description:
        'Why that job failed (job_status FAILED). A draft its failed job removed still answers GET /datasets/{dataset_id} for a week, with is_deleted true',
    }),
  })
  .clone()
  .register(z.globalRegistry, { id: 'Dataset' });

/** GET /api/public/v2/datasets. */
export const datasetListSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  datasets: z.array(datasetViewSchema),
  page: z.int(),
  per_page: z.int(),
  total: z.int(),
  pages: z.int(),
});

/** GET /api/public/v2/datasets/{dataset_id}. */
export const datasetGetSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  dataset: datasetViewSchema,
});

/** GET /api/public/v2/datasets/{dataset_id}/rows. */
export const datasetRowsSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  columns: z.array(z.string()),
  rows: z.array(z.array(z.object({ type: z.literal('dataset'), value: z.unknown() }))),
  page: z.int(),
  per_page: z.int(),
  pages: z.int(),
  total: z.int(),
});

/** POST /api/public/v2/dataset-groups. */
export const datasetGroupCreatedSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  dataset_group: z.object({
    id: z.int(),
    name: z.string(),
    workspace_id: z.int(),
    folder_id: z.nullable(z.int()),
    is_deleted: z.boolean(),
  }),
  dataset: datasetViewSchema
    .clone()
    .register(z.globalRegistry, { description: 'The group’s first, empty draft' }),
  external_ids: z.array(externalIdSchema),
});

/** create-draft (201 empty, 202 copying). */
export const draftCreatedSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  draft_dataset_id: z.int(),
});

/** save-draft. */
export const draftSavedSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  draft_dataset_id: z.int(),
  version_number: z.int(),
});

/** upload-url. */
export const uploadUrlSchema = z.object({
  success: z.literal(true),
  upload_url: z
    .string()
    .clone()
    .register(z.globalRegistry, { description: 'Presigned S3 URL: PUT the file there, unchanged' }),
  method: z.literal('PUT'),
  file_key: z
    .string()
    .clone()
    .register(z.globalRegistry, { description: 'Give it to from-file as file_key' }),
  expires_in: z.int().clone().register(z.globalRegistry, { description: 'Seconds' }),
  max_bytes: z.int(),
});

/** from-file. */
export const versionFromFileSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  dataset_id: z.int(),
});

/** from-filter-params. */
export const versionFromFilterParamsSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  dataset_id: z.int(),
  dataset_group_id: z.int(),
  version_number: z.int(),
});
