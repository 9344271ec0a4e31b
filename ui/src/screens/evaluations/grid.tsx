import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client.ts';
import { type RowsPage, readRows } from './api.ts';

/** The rows endpoint answers at most 100 rows a page (docs/reports.md). */
export const PAGE_SIZE = 100;
/** Rows are one height so the grid can be windowed: only the rows in view (and a margin) are in the DOM. */
const ROW_HEIGHT = 30;
const VIEW_ROWS = 20;
const OVERSCAN = 10;

/** The first and last (exclusive) row index a scroll position shows. */
export function windowOf(scrollTop: number, total: number): { first: number; last: number } {
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(total, Math.ceil(scrollTop / ROW_HEIGHT) + VIEW_ROWS + OVERSCAN);
  return { first, last };
}

/**
 * The pages of a report's rows that hold rows first..last, fetched once each (page 1 always: it tells
 * the columns and the total); `version` changing (a run finished) reads them all again. The caller keys
 * its component by report, so pages of another report are never shown.
 */
export function useRowPages(
  reportId: number,
  first: number,
  last: number,
  version: number,
): { pages: ReadonlyMap<number, RowsPage>; error: string | undefined } {
  const [pages, setPages] = useState<ReadonlyMap<number, RowsPage>>(new Map());
  const [error, setError] = useState<string>();
  const requested = useRef(new Set<number>());
  useEffect(() => {
    requested.current = new Set();
    setError(undefined);
  }, [reportId, version]);
  const wanted = [1];
  for (let page = Math.floor(first / PAGE_SIZE) + 1; page <= Math.floor((last - 1) / PAGE_SIZE) + 1; page++)
    if (page > 1) wanted.push(page);
  useEffect(() => {
    for (const page of wanted) {
      if (requested.current.has(page)) continue;
      requested.current.add(page);
      readRows(reportId, page, PAGE_SIZE).then(
        (answer) => setPages((previous) => new Map(previous).set(page, answer)),
        (failure) => setError(errorMessage(failure)),
      );
    }
  }, [reportId, version, wanted.join()]);
  return { pages, error };
}

export const rowOf = (pages: ReadonlyMap<number, RowsPage>, index: number) =>
  pages.get(Math.floor(index / PAGE_SIZE) + 1)?.rows[index % PAGE_SIZE];

/**
 * A scrolling table that renders only the rows in view: `renderRow(index)` gives a row's cells (`td`s);
 * spacer rows keep the scroll height of all `total` rows.
 */
export function WindowedTable({
  label,
  total,
  header,
  scrollTop,
  onScroll,
  renderRow,
}: {
  label: string;
  total: number;
  header: ComponentChildren;
  scrollTop: number;
  onScroll: (top: number) => void;
  renderRow: (index: number) => ComponentChildren;
}) {
  const { first, last } = windowOf(scrollTop, total);
  const rows: ComponentChildren[] = [];
  for (let index = first; index < last; index++)
    rows.push(
      <tr key={index} aria-rowindex={index + 2} class="evaluations-row">
        <td class="evaluations-row-number">{index + 1}</td>
        {renderRow(index)}
      </tr>,
    );
  return (
    <section
      class="evaluations-grid"
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the scrolling region must be reachable by keyboard
      tabIndex={0}
      onScroll={(event) => onScroll(event.currentTarget.scrollTop)}
    >
      <table aria-rowcount={total + 1}>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col" class="evaluations-row-number">
              #
            </th>
            {header}
          </tr>
        </thead>
        <tbody>
          <tr class="evaluations-spacer" style={{ height: `${first * ROW_HEIGHT}px` }} />
          {rows}
          <tr class="evaluations-spacer" style={{ height: `${(total - last) * ROW_HEIGHT}px` }} />
        </tbody>
      </table>
    </section>
  );
}
