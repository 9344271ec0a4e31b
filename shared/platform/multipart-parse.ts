import type busboy from 'busboy';
import { type AppError, badRequest, clip, payloadTooLarge } from './errors.ts';
import {
  MAX_MULTIPART_FIELD_BYTES,
  MAX_MULTIPART_TEXT_FIELDS,
  type MultipartOptions,
  type MultipartParts,
} from './multipart.ts';
import { onDemand } from './on-demand.ts';

/*
 * The multipart parser, busboy with limits: one file, a few text fields, bounded sizes. A part over its
 * limit is a 413; a malformed body, an undeclared part, a second file or a missing boundary a 400.
 */

/**
 * busboy (with streamsearch, 23 KB minified) is imported on the first multipart body: it is external to
 * the bundles and copied beside those that name it (ON_DEMAND_PACKAGES in infra/bundling.ts), so a
 * route that also takes JSON loads it only for multipart requests.
 */
export const MULTIPART_PARSER_PACKAGE = 'busboy';
const loadBusboy = onDemand(async () => (await import('busboy')).default);

/**
 * Parses a whole multipart body (API Gateway hands it over at once, base64-decoded by the wrapper). Every
 * part is read to its end, so the first violation is the one answered; nothing of a refused body is
 * returned.
 */
export async function parseMultipart(
  body: Buffer,
  contentType: string,
  options: Pick<MultipartOptions, 'fileFields' | 'textFields' | 'maxFileBytes'>,
): Promise<MultipartParts> {
  const { fileFields, textFields, maxFileBytes } = options;
  if (textFields.length > MAX_MULTIPART_TEXT_FIELDS)
    throw new Error(`A multipart route declares at most ${MAX_MULTIPART_TEXT_FIELDS} text fields`);
  const expected = `expected ${[...fileFields, ...textFields].map((name) => `"${name}"`).join(', ')}`;
  const createParser = await loadBusboy();
  let parser: busboy.Busboy;
  try {
    parser = createParser({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8',
      limits: {
        files: 1,
        fields: textFields.length,
        fieldSize: MAX_MULTIPART_FIELD_BYTES,
        // busboy signals when this many parts have been read: one more than a file and each text part.
        parts: textFields.length + 2,
        // One byte more than allowed, so the file's `limit` event tells an overflow from an exact fit.
        fileSize: maxFileBytes + 1,
      },
    });
  } catch (error) {
    throw badRequest(`Malformed multipart Content-Type: ${(error as Error).message}`, 'invalid_multipart');
  }

  return new Promise<MultipartParts>((resolve, reject) => {
    const fields: Record<string, string> = Object.create(null);
    let file: MultipartParts['file'];
    let failure: AppError | undefined;
    let settled = false;
    const fail = (error: AppError) => {
      failure ??= error;
    };
    const settle = (error?: AppError) => {
      if (settled) return;
      settled = true;
      if (error ?? failure) reject(error ?? failure);
      else resolve({ file, fields });
    };
    const partName = (name: string | undefined) =>
      name === undefined ? 'a part without a name' : `part "${clip(name, 64)}"`;

    parser.on('file', (name, stream, info) => {
      // A body cut short fails the file stream too; the parser's own error answers it.
      stream.on('error', () => undefined);
      if (!fileFields.includes(name)) {
        fail(badRequest(`Unexpected file ${partName(name)} (${expected})`, 'invalid_multipart'));
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= maxFileBytes) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (size > maxFileBytes) {
          fail(payloadTooLarge(`File part "${name}" exceeds ${maxFileBytes} bytes`));
          return;
        }
        file = { field: name, filename: info.filename, data: Buffer.concat(chunks, size) };
      });
    });
    parser.on('field', (name, value, info) => {
      if (!textFields.includes(name)) {
        fail(badRequest(`Unexpected text ${partName(name)} (${expected})`, 'invalid_multipart'));
      } else if (info.valueTruncated) {
        fail(payloadTooLarge(`Text part "${name}" exceeds ${MAX_MULTIPART_FIELD_BYTES} bytes`));
      } else if (Object.hasOwn(fields, name)) {
        fail(badRequest(`Text part "${name}" is sent twice`, 'invalid_multipart'));
      } else fields[name] = value;
    });
    parser.on('filesLimit', () =>
      fail(badRequest('A multipart body may hold only one file', 'invalid_multipart')),
    );
    parser.on('fieldsLimit', () =>
      fail(badRequest(`Too many text parts in the multipart body (${expected})`, 'invalid_multipart')),
    );
    parser.on('partsLimit', () =>
      fail(
        badRequest(
          `A multipart body holds at most ${textFields.length + 1} parts (${expected})`,
          'invalid_multipart',
        ),
      ),
    );
    parser.on('error', (error: Error) =>
      settle(failure ?? badRequest(`Malformed multipart body: ${error.message}`, 'invalid_multipart')),
    );
    parser.on('close', () => settle());
    parser.end(body);
  });
}
