import { useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { setQuery } from '../../lib/url-state.ts';

interface UploadUrl {
  upload_url: string;
  file_key: string;
  max_bytes: number;
}

/**
 * A CSV or JSON file becomes the group's next version: PUT to the presigned URL of `upload-url` (with
 * the upload's progress), then `from-file` with its key; the job's progress shows as for a filter.
 */
export function UploadFile({ groupId }: { groupId: number }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string>();
  const upload = async (file: File) => {
    setError(undefined);
    setProgress(0);
    try {
      const target = await api<UploadUrl>('POST', '/api/public/v2/dataset-versions/upload-url', {
        body: { file_name: file.name, file_size: file.size },
      });
      await put(target.upload_url, file, setProgress);
      const started = await api<{ dataset_id: number }>('POST', '/api/public/v2/dataset-versions/from-file', {
        body: { dataset_group_id: groupId, file_name: file.name, file_key: target.file_key },
      });
      setQuery({ version: String(started.dataset_id), job: String(started.dataset_id) });
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setProgress(null);
    }
  };
  return (
    <span class="datasets-upload">
      <label for="datasets-upload-file">Upload a CSV or JSON file</label>
      <input
        id="datasets-upload-file"
        type="file"
        accept=".csv,.json,text/csv,application/json"
        disabled={progress !== null}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
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

/** XMLHttpRequest, not fetch: only it reports an upload's progress. */
function put(url: string, file: File, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', url);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () =>
      request.status >= 200 && request.status < 300
        ? resolve()
        : reject(new Error(`The upload was refused (${request.status})`));
    request.onerror = () => reject(new Error('The upload failed: the storage could not be reached'));
    request.send(file);
  });
}
