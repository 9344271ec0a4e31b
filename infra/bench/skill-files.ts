/**
 * A 4 MB skill ZIP of 100 files taken in as the create route takes it, in this (fresh) process: the
 * multipart body parsed from the base64 API Gateway hands over, the archive read with its limits
 * (readSkillArchive) and the files checked (checkSkillFiles). Wall time of the first run (cold, as in a
 * new Lambda) and of the best of three after it, and the process's peak RSS.
 */
import { deflateRawSync } from 'node:zlib';
import { parseMultipart } from '#shared/platform/multipart-parse.ts';
import { readSkillArchive } from '#shared/skills/archive.ts';
import { writeSkillArchive } from '#shared/skills/archive-write.ts';
import { checkSkillFiles, type SkillFile } from '#shared/skills/files.ts';
import { type BenchRow, fmt, runBenchChild, serveBenchChild } from './support.ts';

const CHILD_FLAG = '--skill-files-bench-child';

const MB = 1024 * 1024;
const FILES = 100;
const SKILLS = 10;
const ARCHIVE_BYTES = 4 * MB;
const TARGET_SECONDS = 1;
const TARGET_RSS_MB = 200;

/** A small random generator with a seed, so every run benches the same archive. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Prose-like text of `bytes` characters: random words from a large vocabulary, sentences, paragraphs. */
function prose(next: () => number, vocabulary: readonly string[], bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  let sentence = 0;
  while (size < bytes) {
    let word = vocabulary[Math.floor(next() * vocabulary.length)]!;
    if (sentence === 0) word = word.charAt(0).toUpperCase() + word.slice(1);
    sentence++;
    const end = next() < 0.08 ? (next() < 0.2 ? '.\n\n' : '. ') : next() < 0.05 ? ', ' : ' ';
    if (end !== ' ' && end !== ', ') sentence = 0;
    parts.push(word, end);
    size += word.length + end.length;
  }
  return parts.join('').slice(0, bytes);
}

/** 10 skills of 10 files (a SKILL.md and 9 references), sized so the archive is ~4 MB deflated. */
function benchFiles(): SkillFile[] {
  const next = random(11);
  const letters = 'etaoinshrdlucmfwypvbgkqjxz';
  const vocabulary = Array.from({ length: 20_000 }, () => {
    const length = 2 + Math.floor(next() * 9);
    let word = '';
    for (let i = 0; i < length; i++) word += letters[Math.floor(next() ** 1.6 * letters.length)];
    return word;
  });
  // How well this text deflates, measured once: each file is then as large as 4 MB of ZIP needs.
  const sample = prose(next, vocabulary, 256 * 1024);
  const ratio = sample.length / deflateRawSync(sample).length;
  const perFile = Math.floor((ARCHIVE_BYTES / FILES) * ratio);
  const files: SkillFile[] = [];
  for (let skill = 0; skill < SKILLS; skill++) {
    const name = `skill-${skill}`;
    const body = prose(next, vocabulary, perFile);
    files.push({
      path: `${name}/SKILL.md`,
      content: `---\nname: ${name}\ndescription: Use ${name} for bench requests.\n---\n\n# ${name}\n\n${body}`,
    });
    for (let file = 1; file < FILES / SKILLS; file++)
      files.push({ path: `${name}/references/ref-${file}.md`, content: prose(next, vocabulary, perFile) });
  }
  return files;
}

/** The multipart body a client sends (a `metadata` part and the ZIP), base64 as API Gateway hands it on. */
async function multipartEvent(zip: Buffer): Promise<{ base64: string; contentType: string }> {
  const form = new FormData();
  form.set('metadata', JSON.stringify({ name: 'bench-skills', commit_message: 'bench' }));
  form.set('archive', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'skills.zip');
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    base64: Buffer.from(await request.arrayBuffer()).toString('base64'),
    contentType: request.headers.get('content-type')!,
  };
}

async function takeIn(base64: string, contentType: string): Promise<number> {
  const parts = await parseMultipart(Buffer.from(base64, 'base64'), contentType, {
    fileFields: ['archive', 'zip'],
    textFields: ['metadata', 'json'],
    maxFileBytes: 6 * MB,
  });
  return checkSkillFiles(await readSkillArchive(parts.file!.data)).length;
}

interface ChildTask {
  base64: string;
  contentType: string;
}

interface ChildResult {
  coldSeconds: number;
  warmSeconds: number;
  baselineRssMb: number;
  peakRssMb: number;
}

export async function benchSkillFiles(): Promise<BenchRow[]> {
  const files = benchFiles();
  const rawBytes = files.reduce((sum, file) => sum + Buffer.byteLength(file.content), 0);
  const zip = await writeSkillArchive(files);
  const result = await runChild(await multipartEvent(zip));
  const label = `skill ZIP ${fmt(zip.length / MB)} MB (${FILES} files, ${fmt(rawBytes / MB)} MB of text), multipart base64 body`;
  return [
    {
      name: `${label}: parse + read + check, first run`,
      value: `${fmt(result.coldSeconds, 3)} s`,
      target: `< ${TARGET_SECONDS} s`,
    },
    {
      name: `${label}: parse + read + check, warm (best of 3)`,
      value: `${fmt(result.warmSeconds, 3)} s`,
      target: '',
    },
    {
      // The child's RSS once started (Node, tsx, the modules, the event received) is part of the peak.
      name: `${label}: peak RSS (own process)`,
      value: `${fmt(result.peakRssMb, 0)} MB (${fmt(result.baselineRssMb, 0)} MB before)`,
      target: `< ${TARGET_RSS_MB} MB`,
    },
  ];
}

/** Runs the intake in a fresh process, as a new Lambda would: its peak RSS is the function's alone. */
const runChild = (task: ChildTask) =>
  runBenchChild<ChildTask, ChildResult>(import.meta.url, CHILD_FLAG, task);

async function childMain(task: ChildTask): Promise<ChildResult> {
  // Loaded before the baseline, as a warm Lambda has its modules.
  const baseline = process.memoryUsage().rss;
  const timed = async () => {
    const started = performance.now();
    const count = await takeIn(task.base64, task.contentType);
    if (count !== FILES) throw new Error(`read ${count} files, expected ${FILES}`);
    return (performance.now() - started) / 1000;
  };
  const coldSeconds = await timed();
  const warmSeconds = Math.min(await timed(), await timed(), await timed());
  return {
    coldSeconds,
    warmSeconds,
    baselineRssMb: baseline / MB,
    // The kernel's high-water mark of this process (in KiB), not a sample.
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

serveBenchChild(CHILD_FLAG, childMain);
