/**
 * The span tree of a trace as the waterfall's rows: depth-first in start order, children of a collapsed
 * span left out, each with its place on the trace's shared time axis.
 */
export interface SpanNode {
  span_id: string;
  parent_id: string | null;
  name: string;
  kind: string;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  duration_ms: number;
  status: { status_code: string; description: string | null };
  request_log_id: number | null;
  attributes?: Record<string, unknown>;
  events?: unknown[];
  resource?: Record<string, unknown> | null;
  /** The answer's size budget left this span's attributes, events and resource out. */
  detail_omitted?: true;
  children: SpanNode[];
}

export interface WaterfallRow {
  span: SpanNode;
  depth: number;
  /** Offset of the span's start from the trace's, and its length, as fractions of the trace's duration. */
  offset: number;
  width: number;
}

/** Start and end of the whole trace, in nanoseconds (as BigInt: unix nanos do not fit a double). */
export function traceBounds(roots: readonly SpanNode[]): { start: bigint; end: bigint } {
  let start: bigint | undefined;
  let end: bigint | undefined;
  const stack = [...roots];
  for (let span = stack.pop(); span; span = stack.pop()) {
    const s = BigInt(span.start_time_unix_nano);
    const e = BigInt(span.end_time_unix_nano);
    if (start === undefined || s < start) start = s;
    if (end === undefined || e > end) end = e;
    stack.push(...span.children);
  }
  return { start: start ?? 0n, end: end ?? 0n };
}

export function waterfallRows(roots: readonly SpanNode[], collapsed: ReadonlySet<string>): WaterfallRow[] {
  const { start, end } = traceBounds(roots);
  const total = Number(end - start) || 1;
  const rows: WaterfallRow[] = [];
  // An explicit stack: a trace may nest deeper than the call stack should.
  const stack: [SpanNode, number][] = roots.map((span) => [span, 0] as [SpanNode, number]).reverse();
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [span, depth] = item;
    const spanStart = BigInt(span.start_time_unix_nano);
    const spanEnd = BigInt(span.end_time_unix_nano);
    rows.push({
      span,
      depth,
      offset: Number(spanStart - start) / total,
      width: Math.max(Number(spanEnd - spanStart), 0) / total,
    });
    if (collapsed.has(span.span_id)) continue;
    for (let i = span.children.length - 1; i >= 0; i--) stack.push([span.children[i]!, depth + 1]);
  }
  return rows;
}

/** Where the axis's ticks go: about `count` round durations (1, 2 or 5 times a power of ten) in ms. */
export function axisTicks(durationMs: number, count = 5): number[] {
  if (!(durationMs > 0)) return [0];
  const raw = durationMs / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = 0; t <= durationMs + step / 1000; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}
