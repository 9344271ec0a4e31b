/**
 * The pure part of reading a trace: spans arranged as a tree, and the choice of what fits in one answer.
 * No I/O here, so both are tested as tables.
 */

/** What tree building needs of a span. */
export interface TreeSpan {
  span_id: string;
  parent_id: string | null;
  start: bigint;
}

export interface SpanTreeNode<T> {
  span: T;
  children: SpanTreeNode<T>[];
}

/**
 * Levels below a root the answer nests at most: far below what JSON parsers accept, far above real
 * traces. A span deeper than this is listed among the roots (its parent_id still names its parent), with
 * its own subtree under it.
 */
export const MAX_TREE_DEPTH = 100;

/** By start time, then span id: a total order, so equal answers for equal traces. */
export function compareSpans(a: TreeSpan, b: TreeSpan): number {
  if (a.start !== b.start) return a.start < b.start ? -1 : 1;
  return a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0;
}

/**
 * Children under their parents, siblings and roots ordered by start time (then span id). A span whose
 * parent is not among `spans` (not sent yet, or left out by a cap) is a root; so is a span naming itself.
 * Parent links that form a cycle (only a broken client sends them) are cut at the cycle's earliest span,
 * which becomes a root. Iterative, so no input exhausts the stack.
 */
export function buildSpanTree<T extends TreeSpan>(
  spans: readonly T[],
  maxDepth = MAX_TREE_DEPTH,
): SpanTreeNode<T>[] {
  const sorted = [...spans].sort(compareSpans);
  const ids = new Set(sorted.map((span) => span.span_id));
  const childrenOf = new Map<string, T[]>();
  const queue: T[] = [];
  for (const span of sorted) {
    const parent = span.parent_id;
    if (parent !== null && parent !== span.span_id && ids.has(parent)) {
      const siblings = childrenOf.get(parent);
      if (siblings) siblings.push(span);
      else childrenOf.set(parent, [span]);
    } else {
      queue.push(span);
    }
  }

  const placed = new Set<string>();
  const roots: SpanTreeNode<T>[] = [];
  const grow = (rootSpan: T) => {
    const root: SpanTreeNode<T> = { span: rootSpan, children: [] };
    placed.add(rootSpan.span_id);
    roots.push(root);
    const stack: [SpanTreeNode<T>, number][] = [[root, 0]];
    while (stack.length > 0) {
      const [node, depth] = stack.pop()!;
      for (const child of childrenOf.get(node.span.span_id) ?? []) {
        if (placed.has(child.span_id)) continue;
        if (depth + 1 > maxDepth) {
          queue.push(child);
          continue;
        }
        placed.add(child.span_id);
        const childNode: SpanTreeNode<T> = { span: child, children: [] };
        node.children.push(childNode);
        stack.push([childNode, depth + 1]);
      }
    }
  };

  let next = 0;
  const drain = () => {
    for (; next < queue.length; next++) if (!placed.has(queue[next]!.span_id)) grow(queue[next]!);
  };
  drain();
  // What is left sits on a cycle of parent links (or below one): cut each at its earliest span.
  for (const span of sorted) {
    if (placed.has(span.span_id)) continue;
    grow(span);
    drain();
  }
  return roots.sort((a, b) => compareSpans(a.span, b.span));
}

/** Sizes of one span's parts in the answer, in bytes of JSON. */
export interface SpanSizes {
  /** Ids, name, times, status, the request-log link: always answered for a span that is answered. */
  summary: number;
  /** Attributes, events, links, resource: answered while they fit. */
  detail: number;
}

export interface AnswerPlan<T> {
  /** The spans answered, in start order. */
  spans: T[];
  /** Spans answered whose detail is answered too. */
  withDetail: Set<T>;
  /** Some spans were left out to stay within the budget. */
  spansCut: boolean;
  /** Some answered spans are answered without their detail. */
  detailCut: boolean;
}

/**
 * What one answer holds when it may be at most `budget` bytes: spans in start order while their summaries
 * fit, then, in the same order, the detail of each span that still fits (a large one is skipped, smaller
 * later ones may still come). Start order keeps the earliest spans, the top of most traces, complete.
 */
export function planAnswer<T extends TreeSpan>(
  spans: readonly T[],
  sizeOf: (span: T) => SpanSizes,
  budget: number,
): AnswerPlan<T> {
  const sorted = [...spans].sort(compareSpans);
  let used = 0;
  let kept = 0;
  while (kept < sorted.length && used + sizeOf(sorted[kept]!).summary <= budget) {
    used += sizeOf(sorted[kept]!).summary;
    kept++;
  }
  const answered = sorted.slice(0, kept);
  const withDetail = new Set<T>();
  for (const span of answered) {
    const { detail } = sizeOf(span);
    if (used + detail <= budget) {
      used += detail;
      withDetail.add(span);
    }
  }
  return {
    spans: answered,
    withDetail,
    spansCut: kept < sorted.length,
    detailCut: withDetail.size < answered.length,
  };
}
