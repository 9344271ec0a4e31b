import { useState } from 'preact/hooks';
import { endSession, session } from '../../api/session.ts';
import { basePath, setQuery } from '../../lib/url-state.ts';

/** The upload route's limit (a Lambda request carries at most 6 MB); bigger files go through upload-url. */
export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;

/**
 * A CSV or JSON file becomes the group's next version: its bytes are the body of POST
 * dataset-versions/upload (same origin: the CSP's connect-src allows no storage URL), which starts the
 * from-file job; the job's state then shows as for a filter.
 */
export function UploadFile({ groupId }: { groupId: number }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string>();
  const upload = async (file: File) => {
    setError(undefined);
    if (file.size > UPLOAD_MAX_BYTES) {
      setError(
        `${file.name} is larger than 5 MB: upload it with the API's upload-url (see the datasets documentation).`,
      );
      return;
    }
    setProgress(0);
    try {
      const datasetId = await send(groupId, file, setProgress);
      setQuery({ version: String(datasetId), job: String(datasetId) });
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setProgress(null);
    }
  };
  return (
    <span class="datasets-upload">
      <label for="datasets-upload-file">Upload a CSV or JSON file (at most 5 MB)</label>
      <input
        id="datasets-upload-file"
        type="file"
        accept=".csv,.json,text/csv,application/json"
        disabled={progress !== null}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          event.currentTarget.value = '';
          if (file) void upload(file);
        }}
      />
      {progress !== null ? (
        <progress max={1} value={progress} aria-label="Upload progress">
          {Math.round(progress * 100)}%
        </progress>
      ) : null}
      {error ? (
        <span class="error" role="alert">
          {error}
        </span>
      ) : null}
    </span>
  );
}

/** XMLHttpRequest, not fetch: only it reports an upload's progress. Answers the new dataset's id. */
function send(groupId: number, file: File, onProgress: (fraction: number) => void): Promise<number> {
  const url = new URL(`${basePath()}/api/public/v2/dataset-versions/upload`, location.origin);
  url.searchParams.set('dataset_group_id', String(groupId));
  url.searchParams.set('file_name', file.name);
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    const key = session.get()?.key;
    if (key) request.setRequestHeader('X-API-KEY', key);
    request.setRequestHeader('Content-Type', /\.json$/i.test(file.name) ? 'application/json' : 'text/csv');
    request.responseType = 'json';
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      const body = (request.response ?? {}) as { dataset_id?: number; message?: string };
      if (request.status === 201 && body.dataset_id) {
        onProgress(1);
        resolve(body.dataset_id);
      } else {
        if (request.status === 401) endSession('Your session ended: sign in again.');
        reject(new Error(body.message ?? `The upload was refused (${request.status})`));
      }
    };
    request.onerror = () => reject(new Error('The upload failed: the service could not be reached'));
    request.send(file);
  });
}
