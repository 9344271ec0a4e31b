import type { S3Client } from '@aws-sdk/client-s3';
import { ENV, requireEnv } from './config.ts';

/**
 * S3 access for payloads that do not belong in a table item. The S3 client is loaded on first use:
 * most requests never touch S3, so its module stays off the cold-start path of the functions that
 * only sometimes need it.
 */
let client: Promise<{ s3: S3Client; sdk: typeof import('@aws-sdk/client-s3') }> | undefined;
let clientEndpoint: string | undefined;

export function s3(): Promise<{ s3: S3Client; sdk: typeof import('@aws-sdk/client-s3') }> {
  // Made again when the endpoint changes: a local service restarted in the same process (tests).
  const endpoint = process.env[ENV.s3Endpoint] || undefined;
  if (client && clientEndpoint !== endpoint) client = undefined;
  clientEndpoint = endpoint;
  client ??= import('@aws-sdk/client-s3').then((sdk) => {
    const s3Client = new sdk.S3Client({
      endpoint,
      // Emulators serve buckets by path; checksums only when an operation requires them (s3rver).
      forcePathStyle: Boolean(endpoint),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    return { s3: s3Client, sdk };
  });
  return client;
}

/** The bucket's name, read from the environment at each use, as the table's is (`table()`). */
export function bucket(): string {
  return requireEnv(ENV.bucketName);
}

export async function putObject(key: string, body: string | Uint8Array, contentType = 'application/json') {
  const { s3: client, sdk } = await s3();
  await client.send(
    new sdk.PutObjectCommand({ Bucket: bucket(), Key: key, Body: body, ContentType: contentType }),
  );
}

export async function getObjectText(key: string): Promise<string> {
  const { s3: client, sdk } = await s3();
  const result = await client.send(new sdk.GetObjectCommand({ Bucket: bucket(), Key: key }));
  if (!result.Body) throw new Error(`Empty object body for ${key}`);
  return result.Body.transformToString('utf-8');
}

export async function deleteObject(key: string): Promise<void> {
  const { s3: client, sdk } = await s3();
  await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket(), Key: key }));
}

/** Presigned uploads wait here until a job reads them; the bucket expires what is left after a day. */
export const UPLOADS_PREFIX = 'uploads/';

/**
 * The bucket's CORS rule for the dashboard's origin (and that origin only): a page PUTs a file to a
 * presigned URL (the Datasets upload) with its Content-Type. The signature stays the access control;
 * CORS lets the page send the PUT and read its answer. The stack sets it (infra/constructs/data-store.ts),
 * the local runtime on its S3 emulator.
 */
export const BROWSER_UPLOAD_CORS = {
  methods: ['PUT'],
  headers: ['Content-Type'],
  maxAgeSeconds: 3000,
} as const;

export interface ObjectInfo {
  contentLength: number;
  etag: string | undefined;
}

/** Size and ETag of an object, or undefined when there is none. */
export async function headObject(key: string): Promise<ObjectInfo | undefined> {
  const { s3: client, sdk } = await s3();
  try {
    const result = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket(), Key: key }));
    return { contentLength: Number(result.ContentLength ?? 0), etag: result.ETag };
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'NotFound' || name === 'NoSuchKey') return undefined;
    throw error;
  }
}

/**
 * An object's body as a stream, read as it arrives. With `ifMatch`, S3 refuses (PreconditionFailed)
 * when the object is no longer the one that ETag names. With `range`, only those bytes (`end` included).
 */
export async function getObjectStream(
  key: string,
  options: { ifMatch?: string; range?: { start: number; end: number } } = {},
): Promise<AsyncIterable<Uint8Array>> {
  const { s3: client, sdk } = await s3();
  const { range } = options;
  const result = await client.send(
    new sdk.GetObjectCommand({
      Bucket: bucket(),
      Key: key,
      IfMatch: options.ifMatch,
      Range: range && `bytes=${range.start}-${range.end}`,
    }),
  );
  if (!result.Body) throw new Error(`Empty object body for ${key}`);
  return result.Body as AsyncIterable<Uint8Array>;
}

/**
 * A URL that lets whoever holds it PUT this one object until it expires, without AWS credentials. With
 * `contentLength`, the length is signed into the URL: S3 refuses a PUT of any other size (403).
 */
export async function presignPut(
  key: string,
  options: { expiresInSeconds: number; contentType?: string; contentLength?: number },
): Promise<string> {
  const [{ s3: client, sdk }, { getSignedUrl }] = await Promise.all([
    s3(),
    import('@aws-sdk/s3-request-presigner'),
  ]);
  return getSignedUrl(
    client,
    new sdk.PutObjectCommand({
      Bucket: bucket(),
      Key: key,
      ContentType: options.contentType,
      ContentLength: options.contentLength,
    }),
    {
      expiresIn: options.expiresInSeconds,
      ...(options.contentLength === undefined ? {} : { signableHeaders: new Set(['content-length']) }),
    },
  );
}

/** The keys below a prefix, a page (up to 1,000) at a time. */
export async function* listObjectKeys(prefix: string): AsyncGenerator<string[]> {
  const { s3: client, sdk } = await s3();
  let token: string | undefined;
  do {
    const page = await client.send(
      new sdk.ListObjectsV2Command({ Bucket: bucket(), Prefix: prefix, ContinuationToken: token }),
    );
    const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : []));
    if (keys.length > 0) yield keys;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

const DELETES_IN_FLIGHT = 8;

/** Deletes these objects (a few requests in flight); deleting a missing object is not an error. */
export async function deleteObjects(keys: readonly string[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < keys.length; i = next++) await deleteObject(keys[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(DELETES_IN_FLIGHT, keys.length) }, worker));
}

/** Deletes every object below a prefix. */
export async function deletePrefix(prefix: string): Promise<void> {
  for await (const keys of listObjectKeys(prefix)) await deleteObjects(keys);
}
