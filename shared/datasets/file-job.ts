import { deleteObject, getObjectStream } from '#shared/platform/blob-store.ts';
import { DatasetFileError, parseDatasetFile } from './file-parser.ts';
import type { JobDefinition } from './job-lifecycle.ts';
import { manifestKey } from './keys.ts';
import { ChunkWriter, newManifest, writeManifest } from './manifest.ts';
import { MAX_FILE_BYTES } from './uploads.ts';

/**
 * The from-file job: streams the uploaded file from S3 through the parser into row chunks, so memory
 * stays bounded whatever the file size (the parser hands over rows in batches and waits while chunks
 * are written). A bad file is a DatasetFileError: the draft is removed and the failure event carries
 * the parser's message. Success makes the draft the group's next version.
 */
export const fileJob: JobDefinition = {
  type: 'file',
  makesVersion: true,
  async run(dataset, job) {
    const { workspaceId, id } = dataset;
    if (!job.fileKey || !job.fileKind) throw new DatasetFileError('The job names no file');
    const source = await openUpload(job.fileKey, job.fileEtag);
    const writer = new ChunkWriter(workspaceId, id, job.id);
    const { columns, keys, rowCount } = await parseDatasetFile(
      job.fileKind,
      capped(source, MAX_FILE_BYTES),
      (rows) => writer.add(rows),
    );
    const chunks = await writer.finish();
    const key = manifestKey(workspaceId, id, job.id);
    await writeManifest(key, newManifest(columns, keys, chunks));
    return { manifestKey: key, columns, rowCount, rowsAdded: rowCount };
  },
  successEvent: (dataset) => ({
    type: 'dataset_version_created_by_file',
    details: { dataset_id: dataset.id, dataset_version_number: dataset.versionNumber },
  }),
  failureEvent: (dataset, errorMessage) => ({
    type: 'dataset_version_created_by_file_failed',
    details: { dataset_id: dataset.id, error_message: errorMessage },
  }),
  async afterEnd(_dataset, job) {
    if (job.fileKey) await deleteObject(job.fileKey);
  },
};

async function openUpload(key: string, etag: string | undefined): Promise<AsyncIterable<Uint8Array>> {
  try {
    return await getObjectStream(key, { ifMatch: etag });
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'NoSuchKey' || name === 'NotFound') {
      throw new DatasetFileError(
        'The uploaded file no longer exists (uploads expire after a day); upload it again',
      );
    }
    if (name === 'PreconditionFailed') {
      throw new DatasetFileError('The uploaded file was replaced after it was submitted; submit it again');
    }
    throw error;
  }
}

/** The object's bytes, refusing to read past the limit (the object may have been replaced since). */
async function* capped(source: AsyncIterable<Uint8Array>, limit: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of source) {
    total += chunk.byteLength;
    if (total > limit) throw new DatasetFileError(`The file is larger than ${limit / 1024 / 1024} MB`);
    yield chunk;
  }
}
