import { jsonBytes, PLAIN_ANSWER_BUDGET_BYTES } from '#shared/platform/answer-limit.ts';
import { notFound } from '#shared/platform/errors.ts';
import { querySpans, readSpanDetails, type SpanDetail, type SpanItem } from './repository.ts';
import type { SpanView } from './schemas.ts';
import { durationMs, nanosToIso } from './span-time.ts';
import { buildSpanTree, planAnswer, type SpanTreeNode, type TreeSpan } from './tree.ts';

/** Spans one GET of a trace reads at most (Query pages of up to 1 MB each). */
export const MAX_TRACE_SPANS = 2000;

interface Node extends TreeSpan {
  item: SpanItem;
  end: bigint;
  summary: Omit<SpanView, 'children'>;
}

/**
 * GET /api/public/v2/traces/{trace_id}: the trace's spans as a tree (buildSpanTree), with trace-level
 * times. Bounded twice: at most MAX_TRACE_SPANS spans are read, and the answer holds at most
 * PLAIN_ANSWER_BUDGET_BYTES of plain JSON, as span details are measured when stored (spans in start order while they fit, then each answered span's attributes,
 * events, links and resource while they fit). `truncated` and `detail_truncated` say when a bound cut.
 * An unknown trace, or one of another workspace, is a 404.
 */
export async function getTrace(workspaceId: number, traceId: string) {
  const { spans: items, more } = await querySpans(workspaceId, traceId, MAX_TRACE_SPANS);
  if (items.length === 0) throw notFound(`Trace ${traceId} not found`);

  const nodes: Node[] = items.map((item) => {
    const start = BigInt(item.record.start_ns);
    const end = BigInt(item.record.end_ns);
    return {
      span_id: item.record.span_id,
      parent_id: item.record.parent_id,
      start,
      end,
      item,
      summary: summaryView(item, start, end),
    };
  });
  const plan = planAnswer(
    nodes,
    (node) => ({ summary: jsonBytes(node.summary), detail: node.item.detailBytes }),
    PLAIN_ANSWER_BUDGET_BYTES,
  );
  const detailed = plan.spans.filter((node) => plan.withDetail.has(node));
  const details = await readSpanDetails(detailed.map((node) => node.item));
  const detailOf = new Map(detailed.map((node, i) => [node, details[i]!]));

  let start = nodes[0]!.start;
  let end = nodes[0]!.end;
  for (const node of nodes) {
    if (node.start < start) start = node.start;
    if (node.end > end) end = node.end;
  }
  return {
    success: true as const,
    trace_id: traceId,
    start_time: nanosToIso(start),
    end_time: nanosToIso(end),
    duration_ms: durationMs(start, end),
    span_count: plan.spans.length,
    truncated: more || plan.spansCut,
    detail_truncated: plan.detailCut,
    spans: buildSpanTree(plan.spans).map((root) => toView(root, detailOf)),
  };
}

function summaryView(item: SpanItem, start: bigint, end: bigint): Omit<SpanView, 'children'> {
  const { record } = item;
  return {
    span_id: record.span_id,
    parent_id: record.parent_id,
    name: record.name,
    kind: record.kind,
    start_time: nanosToIso(start),
    end_time: nanosToIso(end),
    start_time_unix_nano: record.start_ns,
    end_time_unix_nano: record.end_ns,
    duration_ms: durationMs(start, end),
    status: record.status,
    request_log_id: record.request_log_id,
    request_log: record.request_log,
    trace_state: record.trace_state,
  };
}

/** Recursion is bounded by the tree's depth limit (MAX_TREE_DEPTH). */
function toView(node: SpanTreeNode<Node>, detailOf: Map<Node, SpanDetail>): SpanView {
  const detail = detailOf.get(node.span);
  const children = node.children.map((child) => toView(child, detailOf));
  if (!detail) return { ...node.span.summary, detail_omitted: true, children };
  return {
    ...node.span.summary,
    attributes: detail.attributes,
    events: detail.events,
    links: detail.links,
    resource: detail.resource,
    ...(detail.extra ? { extra: detail.extra } : {}),
    children,
  };
}
