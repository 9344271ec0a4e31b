import { randomUUID } from 'node:crypto';
import { deletePrefix } from '#shared/platform/blob-store.ts';
import { AppError, conflict, notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { getRequestLog } from '#shared/request-logs/repository.ts';
import { FUNCTION_OUTPUT_ATTRIBUTE } from '#shared/traces/links.ts';
import { getTrace } from '#shared/traces/read.ts';
import type { SpanView } from '#shared/traces/schemas.ts';
import { createDraft, draftBusy, findDraft, installAppendedRows, isBusy, newDraft } from './drafts.ts';
import { requireGroup } from './groups.ts';
import { jobPrefix, manifestKey } from './keys.ts';
import { LogRowBuilder } from './log-rows.ts';
import {
  appendManifest,
  ChunkWriter,
  type LayoutKey,
  newManifest,
  readManifest,
  writeManifest,
} from './manifest.ts';
import type { DatasetGroupRecord, DatasetRecord } from './records.ts';
import type { Caller } from './versions.ts';

/**
 * Rows appended one request at a time to a group's draft (add-request-log, add-trace), synchronously:
 * the row is written as a chunk with a manifest of the draft's rows plus it, under a folder of its own,
 * and installed with one conditional write of the draft's manifest pointer (shared/datasets/drafts.ts,
 * installAppendedRows). A group without a draft gets one, as PromptLayer does. A draft a job is
 * building is a 409 `draft_busy`; an append that loses a race to another one deletes what it wrote and
 * reads the draft again.
 */
const MAX_ATTEMPTS = 12;

export interface AppendedRows {
  rows: Record<string, unknown>[];
  columns: string[];
  keys: LayoutKey[];
}

/** POST /api/public/v2/dataset-versions/add-request-log: the log as one row, as from-filter-params makes it. */
export async function addRequestLogToDraft(
  caller: Caller,
  groupId: number,
  requestLogId: number,
): Promise<number> {
  const group = await requireGroup(caller.workspaceId, groupId);
  const record = await getRequestLog(caller.workspaceId, requestLogId);
  if (!record) throw notFound(`Request ${requestLogId} not found`);
  const builder = new LogRowBuilder();
  const row = builder.row(record);
  const { columns, keys } = builder.layout();
  return appendToDraft(caller, group, { rows: [row], columns, keys });
}

/**
 * POST /api/public/v2/dataset-versions/add-trace: one row from a trace (read as GET /traces/{id} reads
 * it, within its bounds). Without `spanId`: `trace_id`, the first root span's `input` and `output`
 * (its `function_input` / `function_output` attributes, as the SDK's wrapped functions record them)
 * and `spans`, the trace's span tree. With `spanId`: that span's `input` and `output`, then one column
 * per direct child, named by the child (a repeated name gets `_2`, `_3`...), holding its output.
 */
export async function addTraceToDraft(
  caller: Caller,
  groupId: number,
  traceId: string,
  spanId?: string,
): Promise<number> {
  const group = await requireGroup(caller.workspaceId, groupId);
  const trace = await getTrace(caller.workspaceId, traceId);
  const row: Record<string, unknown> = {};
  if (spanId === undefined) {
    const root = trace.spans[0];
    Object.assign(row, { trace_id: trace.trace_id, ...ioOf(root), spans: trace.spans });
  } else {
    const span = findSpan(trace.spans, spanId);
    if (!span) throw notFound(`Span ${spanId} not found in trace ${traceId}`);
    Object.assign(row, ioOf(span));
    for (const child of span.children) {
      let name = child.name;
      for (let n = 2; Object.hasOwn(row, name); n++) name = `${child.name}_${n}`;
      row[name] = ioOf(child).output;
    }
  }
  const columns = Object.keys(row);
  return appendToDraft(caller, group, { rows: [row], columns, keys: columns });
}

function ioOf(span: SpanView | undefined): { input: unknown; output: unknown } {
  return {
    input: span?.attributes?.function_input ?? null,
    output: span?.attributes?.[FUNCTION_OUTPUT_ATTRIBUTE] ?? null,
  };
}

/** Depth-first; the tree's depth is bounded by the trace read (MAX_TREE_DEPTH). */
function findSpan(spans: readonly SpanView[], spanId: string): SpanView | undefined {
  for (const span of spans) {
    if (span.span_id === spanId) return span;
    const found = findSpan(span.children, spanId);
    if (found) return found;
  }
  return undefined;
}

/** Appends rows to the group's draft (made when missing); the draft's id. */
export async function appendToDraft(
  caller: Caller,
  group: DatasetGroupRecord,
  added: AppendedRows,
): Promise<number> {
  const { workspaceId } = caller;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const draft = (await findDraft(workspaceId, group.id)) ?? (await newEmptyDraft(caller, group));
    if (draft) {
      if (isBusy(draft)) throw draftBusy(group.id, draft.id);
      const appendId = `append-${randomUUID()}`;
      const writer = new ChunkWriter(workspaceId, draft.id, appendId);
      await writer.add(added.rows);
      const base = draft.manifestKey ? await readManifest(draft.manifestKey) : undefined;
      const manifest = appendManifest(base, newManifest(added.columns, added.keys, await writer.finish()));
      const key = manifestKey(workspaceId, draft.id, appendId);
      await writeManifest(key, manifest);
      const rows = { manifestKey: key, columns: manifest.columns, rowCount: manifest.rowCount };
      if (await installAppendedRows(draft, rows)) return draft.id;
      await deletePrefix(jobPrefix(workspaceId, draft.id, appendId));
    }
    // Another append (or a job) changed the draft meanwhile: a short jittered pause, then read it again.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
  }
  throw conflict(
    `The draft of dataset group ${group.id} kept changing while this row was added; try again`,
    'draft_busy',
  );
}

/** A new empty draft for the group; undefined when another request made one just now. */
async function newEmptyDraft(caller: Caller, group: DatasetGroupRecord): Promise<DatasetRecord | undefined> {
  const draft = newDraft(group, await nextId('dataset'), caller.userId, 'empty');
  try {
    await createDraft(draft);
    return draft;
  } catch (error) {
    if (error instanceof AppError && error.status === 409) return undefined;
    throw error;
  }
}
