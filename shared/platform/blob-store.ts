import type { S3Client } from '@aws-sdk/client-s3';
import { ENV, requireEnv } from './config.ts';

/**
 * S3 access for payloads that do not belong in a table item. The S3 client is loaded on first use:
 * most requests never touch S3, so its module stays off the cold-start path of the functions that
 * only sometimes need it.
 */
let client: Promise<{ s3: S3Client; sdk: typeof import('@aws-sdk/client-s3') }> | undefined;

export function s3(): Promise<{ s3: S3Client; sdk: typeof import('@aws-sdk/client-s3') }> {
  client ??= import('@aws-sdk/client-s3').then((sdk) => {
    const endpoint = process.env[ENV.s3Endpoint] || undefined;
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

let bucketName: string | undefined;
export function bucket(): string {
  bucketName ??= requireEnv(ENV.bucketName);
  return bucketName;
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
