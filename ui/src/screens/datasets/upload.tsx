import { useState } from 'preact/hooks';
import { api, errorMessage } from '../../api/client.ts';
import { setQuery } from '../../lib/url-state.ts';

interface UploadUrl {
  upload_url: string;
  file_key: string;
}

/**
 * A CSV or JSON file (up to the API's 100 MB) becomes the group's next version, as a script sends one:
 * upload-url (the size signed into the URL), the file PUT straight to that presigned URL (the CSP's
 * connect-src names the bucket's origin, the bucket's CORS rule the dashboard's), then from-file with its
 * `file_key`, which starts the job; the job's state then shows as for a filter.
 */
export function UploadFile({ groupId }: { groupId: number }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string>();
  const upload = async (file: File) => {
    setError(undefined);
    if (file.size === 0) {
      setError(`${file.name} is empty.`);
      return;
    }
    setProgress(0);
    try {
      const target = await api<UploadUrl>('POST', '/api/public/v2/dataset-versions/upload-url', {
        body: { file_name: file.name, file_size: file.size },
      });
      await put(target.upload_url, file, setProgress);
      const { dataset_id } = await api<{ dataset_id: number }>(
        'POST',
        '/api/public/v2/dataset-versions/from-file',
        { body: { dataset_group_id: groupId, file_name: file.name, file_key: target.file_key } },
      );
      setQuery({ version: String(dataset_id), job: String(dataset_id) });
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setProgress(null);
    }
  };
  return (
    <span class="datasets-upload">
      <label for="datasets-upload-file">Upload a CSV or JSON file (at most 100 MB)</label>
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

/**
 * The file PUT to its presigned URL, without the API key (the URL's signature is the permission).
 * XMLHttpRequest, not fetch: only it reports an upload's progress.
 */
function put(url: string, file: File, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', url);
    request.setRequestHeader('Content-Type', /\.json$/i.test(file.name) ? 'application/json' : 'text/csv');
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        onProgress(1);
        resolve();
      } else {
        reject(new Error(refusal(request.status, request.responseText)));
      }
    };
    // A browser tells a refused CORS preflight and a network failure apart to nobody: both land here.
    request.onerror = () =>
      reject(
        new Error(
          "The upload could not reach the file storage: check the network; if it persists, the deployment does not let this page's origin upload (an operator adds it with the dashboardOrigins setting, docs/deployment.md)",
        ),
      );
    request.send(file);
  });
}

/** What S3's error codes mean for the person uploading (its XML body names the code). */
const S3_ADVICE: Record<string, string> = {
  RequestTimeTooSkewed: "this computer's clock is off: set it right and upload again",
  SignatureDoesNotMatch: 'the file changed after it was chosen: choose it again',
  EntityTooLarge: 'the file is larger than the API takes',
};

function refusal(status: number, body: string): string {
  const code = /<Code>([A-Za-z]+)<\/Code>/.exec(body)?.[1];
  const expired = code === 'AccessDenied' && /Request has expired/.test(body);
  const advice = expired ? 'the upload link has expired: upload again' : code ? S3_ADVICE[code] : undefined;
  return `The file storage refused the upload (${status}${code ? ` ${code}` : ''})${advice ? `: ${advice}` : ''}`;
}
