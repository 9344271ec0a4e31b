import { Readable } from 'node:stream';
import yazl from 'yazl';

/**
 * ZIP archives for skill-collection tests, normal and hostile, built in the test: yazl for the shape,
 * then bytes patched where yazl (rightly) refuses to write what an attacker would (`..` names, absolute
 * names, sizes that lie).
 */
export interface ArchiveEntry {
  /** Ending in `/`: a directory entry. */
  path: string;
  data: string | Buffer;
  /** Unix mode (type and permissions), e.g. 0o120777 for a symbolic link. */
  mode?: number;
  /** Stored instead of deflated. */
  store?: boolean;
}

export async function buildZip(entries: readonly ArchiveEntry[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const entry of entries) {
    if (entry.path.endsWith('/')) {
      zip.addEmptyDirectory(entry.path);
      continue;
    }
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data);
    zip.addBuffer(data, entry.path, { compress: !entry.store, ...(entry.mode ? { mode: entry.mode } : {}) });
  }
  zip.end();
  return collect(zip.outputStream);
}

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A SKILL.md whose front matter passes the rules for a skill in folder `name`. */
export function skillMd(name: string, description = `Use ${name} when asked.`, body = '# Steps\n'): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/**
 * An archive with an entry named `hostileName`, which yazl would refuse to write: written under a
 * placeholder of the same length, then renamed in both headers (the name is in no checksum).
 */
export async function zipWithName(hostileName: string, data = 'evil'): Promise<Buffer> {
  const placeholder = hostileName.replace(/[^A-Za-z0-9]/g, 'x');
  const zip = await buildZip([{ path: placeholder, data }]);
  return replaceAll(zip, Buffer.from(placeholder), Buffer.from(hostileName));
}

function replaceAll(buffer: Buffer, from: Buffer, to: Buffer): Buffer {
  const out = Buffer.from(buffer);
  for (let at = out.indexOf(from); at !== -1; at = out.indexOf(from, at + from.length)) to.copy(out, at);
  return out;
}

const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

/** Sets the uncompressed size an entry declares, in its local and central headers (a lying entry). */
export function declareSize(zip: Buffer, path: string, uncompressedSize: number): Buffer {
  const out = Buffer.from(zip);
  const name = Buffer.from(path);
  for (let at = 0; at + 46 <= out.length; at++) {
    const signature = out.readUInt32LE(at);
    if (signature === CENTRAL_HEADER && out.subarray(at + 46, at + 46 + name.length).equals(name))
      out.writeUInt32LE(uncompressedSize, at + 24);
    if (signature === LOCAL_HEADER && out.subarray(at + 30, at + 30 + name.length).equals(name))
      out.writeUInt32LE(uncompressedSize, at + 22);
  }
  return out;
}

/** A file of `bytes` zeros, streamed into the archive (never whole in memory), deflated. */
export async function zipOfZeros(path: string, bytes: number): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const chunk = Buffer.alloc(1024 * 1024);
  let left = bytes;
  const source = Readable.from(
    (function* () {
      while (left > 0) {
        const size = Math.min(left, chunk.length);
        left -= size;
        yield chunk.subarray(0, size);
      }
    })(),
  );
  zip.addReadStream(source, path, { size: bytes });
  zip.end();
  return collect(zip.outputStream);
}

/** A ZIP holding `files` (path -> text), deflated. */
export const zipOf = (files: Record<string, string>): Promise<Buffer> =>
  buildZip(Object.entries(files).map(([path, data]) => ({ path, data })));

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
