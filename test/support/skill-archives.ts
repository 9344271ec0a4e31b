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

/** One entry of a hand-built ZIP: what its headers declare may differ from its data (hostile archives). */
export interface RawEntry {
  name: string;
  /** The stored bytes (already deflated when `deflated`). */
  data: Buffer;
  deflated?: boolean;
  crc32: number;
  /** The uncompressed size the headers declare. */
  declaredSize: number;
  /** Unix mode in the upper 16 bits of the external attributes (e.g. 0o120777 for a symlink). */
  unixMode?: number;
}

/**
 * A ZIP written byte by byte (local headers, data, central directory), for archives a ZIP library
 * refuses to write: names with `..` or a leading `/`, symlinks, sizes that lie.
 */
export function rawZip(entries: readonly RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const method = entry.deflated ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(entry.crc32 >>> 0, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(entry.crc32 >>> 0, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.unixMode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
