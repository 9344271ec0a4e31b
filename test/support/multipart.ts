/**
 * Builds `multipart/form-data` bodies byte by byte, for tests that need control a FormData does not give
 * (quoted boundaries, undeclared parts, two files, truncated bodies).
 */
export interface TestPart {
  name: string;
  /** Present: a file part (Content-Disposition carries the filename). */
  filename?: string;
  contentType?: string;
  data: string | Buffer;
}

export function multipartBody(
  parts: readonly TestPart[],
  boundary = '----promptops-test-boundary',
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.contentType ? `Content-Type: ${part.contentType}\r\n` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  // A boundary that is not an HTTP token (e.g. holds `=`) must be quoted in the header.
  const quoted = /^[!#$%&'*+.^_`|~\w-]+$/.test(boundary) ? boundary : `"${boundary}"`;
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${quoted}` };
}
