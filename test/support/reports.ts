import { expect } from 'vitest';
import type { TestService } from './local-service.ts';
import { uniqueName } from './prompts.ts';

/** Datasets, columns and reports for evaluation-report tests, made through the local gateway. */

type Options = { key?: string };

/** A new dataset group (with its empty draft): its id. Unique names, so groups never collide. */
export async function createDatasetGroup(
  service: TestService,
  { key, name = uniqueName('group') }: Options & { name?: string } = {},
): Promise<number> {
  const answer = await service.call('POST', '/api/public/v2/dataset-groups', { body: { name }, key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.dataset_group.id as number;
}

/**
 * Publishes `csv` as the group's next version through from-file and waits for the job that writes its
 * rows, so a report made next finds the version published: the version's dataset id.
 */
export async function publishVersion(
  service: TestService,
  groupId: number,
  csv: string,
  { key, fileName = 'eval.csv' }: Options & { fileName?: string } = {},
): Promise<number> {
  const answer = await service.call('POST', '/api/public/v2/dataset-versions/from-file', {
    body: {
      dataset_group_id: groupId,
      file_name: fileName,
      file_content_base64: Buffer.from(csv, 'utf8').toString('base64'),
    },
    key,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  await service.messaging.idle();
  return answer.body.dataset_id as number;
}

/** A new group whose version 1 is `csv`, published: what a report is made over. */
export async function publishedDataset(
  service: TestService,
  csv: string,
  options: Options & { name?: string; fileName?: string } = {},
): Promise<{ groupId: number; datasetId: number }> {
  const groupId = await createDatasetGroup(service, options);
  return { groupId, datasetId: await publishVersion(service, groupId, csv, options) };
}

/** A COMPARE column: true where the two sources are the same string. */
export const compareColumn = (name: string, sources: [string, string] = ['question', 'expected']) => ({
  column_type: 'COMPARE',
  name,
  configuration: { sources, comparison_type: { type: 'STRING' } },
});

export type CreatedReport = {
  report_id: number;
  report_columns: { id: number; name: string }[];
  [field: string]: unknown;
};

/** POST /reports with `body`, failing loudly unless it answered 201: its answer. */
export async function createReport(
  service: TestService,
  body: Record<string, unknown>,
  key?: string,
): Promise<CreatedReport> {
  const answer = await service.call('POST', '/reports', { body, key });
  // The start of the answer says why; a whole one can be large.
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(201);
  return answer.body;
}

/** A report over a new group whose version 1 is `csv`; `body` is the rest of the POST /reports body. */
export async function reportOver(
  service: TestService,
  csv: string,
  body: Record<string, unknown> = {},
  options: Options & { fileName?: string } = {},
): Promise<CreatedReport> {
  const { groupId } = await publishedDataset(service, csv, options);
  return createReport(service, { dataset_group_id: groupId, ...body }, options.key);
}
