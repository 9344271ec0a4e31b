/**
 * Throughput and peak memory of the dataset file parser on ~100 MB files (the from-file upload limit),
 * generated on the fly as streams so the file itself never sits in memory.
 */
import { Readable } from 'node:stream';
import { type DatasetFileKind, parseDatasetFile } from '#shared/datasets/file-parser.ts';
import type { BenchRow } from './support.ts';

const FILE_BYTES = 100 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const MB = 1024 * 1024;
const TARGET_MB_PER_S = 20;
const TARGET_RSS_MB = 256;

// A handful of varied texts (commas, quotes, newlines, non-ASCII) cycled through the rows.
const TEXTS = [
  'Summarise the following ticket:\nCustomer says "it broke", again, after the update.',
  'Translate to French: the café opened at 9, and closed at 5.',
  'Short answer',
  'Line one\nLine two\nLine three, with a comma\nand a "quoted" word — plus an emoji 😀',
  'You are a helpful assistant. Answer in JSON: {"answer": "...", "confidence": 0.9}',
];

const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

function csvRow(i: number): string {
  const input = quoted(TEXTS[i % TEXTS.length]!);
  const expected = quoted(TEXTS[(i + 2) % TEXTS.length]!);
  return `${i},user-${i % 977},${input},${expected},${(i % 100) / 10}\n`;
}

function jsonRow(i: number): string {
  return JSON.stringify({
    id: i,
    user: `user-${i % 977}`,
    input: TEXTS[i % TEXTS.length],
    expected: TEXTS[(i + 2) % TEXTS.length],
    score: (i % 100) / 10,
    metadata: { tags: ['bench', `t${i % 7}`], ok: i % 3 === 0 },
  });
}

/**
 * ~FILE_BYTES of the file as a stream of ~CHUNK_BYTES buffers. The rows are built once into a ~1 MB block
 * that is streamed over and over, so generating the file costs next to nothing beside the parsing.
 */
function generate(kind: DatasetFileKind): { stream: Readable; bytes: () => number } {
  let text = '';
  for (let i = 0; text.length < MB; i++) text += kind === 'csv' ? csvRow(i) : `${jsonRow(i)},`;
  const block = Buffer.from(text);
  const head = Buffer.from(kind === 'csv' ? 'id,user,input,expected,score\n' : '[');
  const tail = Buffer.from(kind === 'csv' ? '' : `${jsonRow(-1)}]`);
  let total = 0;
  function* chunks() {
    yield head;
    while (total + block.length < FILE_BYTES) {
      for (let i = 0; i < block.length; i += CHUNK_BYTES) yield block.subarray(i, i + CHUNK_BYTES);
      total += block.length;
    }
    yield tail;
  }
  return {
    stream: Readable.from(chunks(), { objectMode: false }),
    bytes: () => head.length + total + tail.length,
  };
}

async function measure(kind: DatasetFileKind) {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const { stream, bytes } = generate(kind);
  const started = performance.now();
  const { rowCount } = await parseDatasetFile(kind, stream, async () => {});
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    mbPerS: bytes() / MB / seconds,
    peakMb: peak / MB,
    beforeMb: before / MB,
    rowCount,
    mb: bytes() / MB,
  };
}

export async function benchFileParser(): Promise<BenchRow[]> {
  const results: BenchRow[] = [];
  for (const kind of ['csv', 'json'] as const) {
    const r = await measure(kind);
    const label = `dataset file parser, ${kind} ${r.mb.toFixed(0)} MB (${r.rowCount} rows)`;
    results.push(
      {
        name: `${label}: throughput`,
        value: `${r.mbPerS.toFixed(1)} MB/s`,
        // The throughput target is for CSV; JSON is printed for comparison.
        target: kind === 'csv' ? `>= ${TARGET_MB_PER_S} MB/s` : '(none: the target is for CSV)',
      },
      {
        // The process's RSS before parsing (modules loaded, earlier sections) is part of the peak.
        name: `${label}: peak RSS`,
        value: `${r.peakMb.toFixed(0)} MB (${r.beforeMb.toFixed(0)} MB before)`,
        target: `< ${TARGET_RSS_MB} MB`,
      },
    );
  }
  return results;
}
