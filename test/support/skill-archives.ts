import { ZipFile } from 'yazl';

/** Test helpers for skill collections: a SKILL.md, a ZIP of files, a multipart/form-data body. */

/** A SKILL.md whose front matter follows the Agent Skills rules for a skill in folder `name`. */
export const skillMd = (name: string, body = 'Use this skill when asked.') =>
  `---\nname: ${name}\ndescription: What ${name} does and when to use it.\n---\n\n# ${name}\n\n${body}\n`;

/** A ZIP holding `files` (path -> text), deflated. */
export function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [path, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content, 'utf8'), path);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** A multipart/form-data body of text parts and at most one file part, as fetch would send it. */
export async function formBody(
  fields: Record<string, string>,
  file?: { field: string; data: Buffer; filename?: string },
): Promise<{ rawBody: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  if (file) form.set(file.field, new Blob([new Uint8Array(file.data)]), file.filename ?? 'skills.zip');
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    rawBody: Buffer.from(await request.arrayBuffer()),
    headers: { 'Content-Type': request.headers.get('content-type')! },
  };
}
