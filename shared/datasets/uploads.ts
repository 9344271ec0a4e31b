import { randomUUID } from 'node:crypto';
import { deleteObject, headObject, presignPut, UPLOADS_PREFIX } from '#shared/platform/blob-store.ts';
import { badRequest, invalid } from '#shared/platform/errors.ts';
import { type DatasetFileKind, datasetFileKind } from './file-parser.ts';

/**
 * The two ways a dataset file arrives: inline as base64 in the from-file body (API Gateway and Lambda cap
 * a body near 6 MB), or uploaded straight to S3 with a presigned PUT from upload-url (by a script, or the
 * dashboard's page) and then named by its `file_key` (up to the API's 100 MB file limit). Either way the
 * job reads the file from S3 below `uploads/`, where the bucket expires whatever a job has not cleaned up
 * after a day.
 */
export const MAX_FILE_BYTES = 100 * 1024 * 1024;
export const UPLOAD_URL_EXPIRES_SECONDS = 15 * 60;

const uploadsOf = (workspaceId: number) => `${UPLOADS_PREFIX}${workspaceId}/`;

/** The extension decides the parser; any other is a bad file type (400), as the reference answers. */
export function requireFileKind(fileName: string): DatasetFileKind {
  const kind = datasetFileKind(fileName);
  if (!kind) throw badRequest('file_name must end in .csv or .json', 'invalid_file_type');
  return kind;
}

const MAX_KEY_NAME_BYTES = 200;

/** The file name as part of an S3 key: no slashes or control characters, at most 200 bytes. */
function keySafeName(fileName: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  let name = fileName.replace(/[/\\\u0000-\u001f\u007f]/g, '_');
  while (Buffer.byteLength(name, 'utf8') > MAX_KEY_NAME_BYTES) name = name.slice(1);
  return name;
}

/** A new object key in the workspace's upload area. */
export function newUploadKey(workspaceId: number, fileName: string): string {
  return `${uploadsOf(workspaceId)}${randomUUID()}/${keySafeName(fileName)}`;
}

export interface UploadUrl {
  success: true;
  upload_url: string;
  method: 'PUT';
  file_key: string;
  expires_in: number;
  max_bytes: number;
}

/**
 * A presigned PUT for one new upload key. With `fileSize` (the exact size the client will send), the
 * size is signed into the URL, so S3 refuses the PUT of any other size, an oversized file included;
 * without it, any size may land and from-file refuses (and deletes) one over MAX_FILE_BYTES.
 */
export async function createUploadUrl(
  workspaceId: number,
  fileName: string,
  fileSize?: number,
): Promise<UploadUrl> {
  requireFileKind(fileName);
  if (fileSize !== undefined && fileSize > MAX_FILE_BYTES) throw fileTooLarge();
  const key = newUploadKey(workspaceId, fileName);
  return {
    success: true,
    upload_url: await presignPut(key, {
      expiresInSeconds: UPLOAD_URL_EXPIRES_SECONDS,
      contentLength: fileSize,
    }),
    method: 'PUT',
    file_key: key,
    expires_in: UPLOAD_URL_EXPIRES_SECONDS,
    max_bytes: MAX_FILE_BYTES,
  };
}

export interface UploadedFile {
  key: string;
  size: number;
  etag: string | undefined;
}

/** What follows `uploads/<ws>/` in a key newUploadKey made: a UUID, then a name keySafeName made. */
const UPLOAD_KEY_REST =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  /^[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\/((?!\.\.?$)[^/\\\u0000-\u001f\u007f]+)$/;

/**
 * Whether `key` has exactly the form newUploadKey gives, in this workspace: `uploads/<ws>/<uuid>/<name>`,
 * no `.` or `..` segment, no empty one, no backslash. A prefix check is not enough: S3 emulators and
 * proxies resolve `..`, so `uploads/1/../2/...` would reach (and the job delete) another workspace's file.
 */
export function isUploadKeyOf(workspaceId: number, key: string): boolean {
  const prefix = uploadsOf(workspaceId);
  const name = key.startsWith(prefix) ? UPLOAD_KEY_REST.exec(key.slice(prefix.length))?.[1] : undefined;
  return name !== undefined && Buffer.byteLength(name, 'utf8') <= MAX_KEY_NAME_BYTES;
}

/** An uploaded file of this workspace, checked to exist and to fit the limit. */
export async function checkUpload(workspaceId: number, key: string): Promise<UploadedFile> {
  if (!isUploadKeyOf(workspaceId, key)) {
    throw invalid(['body', 'file_key'], 'must be a file_key returned by upload-url for this workspace');
  }
  const head = await headObject(key);
  if (!head) {
    throw badRequest(
      'No file has been uploaded at file_key (PUT it to the upload_url first; uploads expire)',
      'file_not_found',
    );
  }
  if (head.contentLength > MAX_FILE_BYTES) {
    // Refused for good: the object would only wait for the bucket's one-day expiry, taking space.
    await deleteObject(key);
    throw fileTooLarge();
  }
  return { key, size: head.contentLength, etag: head.etag };
}

const fileTooLarge = (maxBytes = MAX_FILE_BYTES) =>
  badRequest(`The file is larger than ${maxBytes / 1024 / 1024} MB`, 'file_too_large');

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64_URL = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Strict base64 (standard or URL-safe alphabet; padding optional; line breaks ignored). Anything
 * else is a 400: Buffer.from would silently skip the bad characters and decode garbage.
 */
export function decodeBase64File(text: string, maxBytes = MAX_FILE_BYTES): Buffer {
  const compact = text.replace(/[\r\n\t ]+/g, '');
  const body = compact.replace(/=+$/, '');
  // Four characters carry three bytes: the size is known before anything is checked or decoded.
  if (Math.floor((body.length * 3) / 4) > maxBytes) throw fileTooLarge(maxBytes);
  const standard = BASE64.test(compact);
  const valid =
    body.length > 0 &&
    (standard || BASE64_URL.test(compact)) &&
    body.length % 4 !== 1 &&
    compact.length - body.length <= 2 &&
    (compact.length === body.length || compact.length % 4 === 0);
  if (!valid) throw badRequest('file_content_base64 is not valid base64', 'invalid_base64');
  return Buffer.from(body, standard ? 'base64' : 'base64url');
}
