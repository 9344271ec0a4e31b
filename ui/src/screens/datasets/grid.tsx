import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';

/** GET /datasets/{id}/rows answers at most 100 rows a page (docs/datasets.md). */
const PAGE_SIZE = 100;
/** Rows are one height so the grid can be windowed: only the rows in view (and a margin) are in the DOM. */
const ROW_HEIGHT = 28;
const VIEW_ROWS = 20;
const OVERSCAN = 10;

interface RowsAnswer {
  columns: string[];
  rows: { type: 'dataset'; value: unknown }[][];
  total: number;
}

const cellText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

/**
 * A version's rows as a windowed grid: the pages of the rows in view are fetched as they scroll in, and
 * only the rows in view are rendered (10,000 rows stay a few dozen elements).
 */
export function RowsGrid({ datasetId }: { datasetId: number }) {
  const [pages, setPages] = useState<ReadonlyMap<number, RowsAnswer>>(new Map());
  const [error, setError] = useState<string>();
  const [scrollTop, setScrollTop] = useState(0);
  const requested = useRef(new Set<number>());
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const firstPage = pages.get(1);
  const total = firstPage?.total ?? 0;
  const last = Math.min(total, Math.ceil(scrollTop / ROW_HEIGHT) + VIEW_ROWS + OVERSCAN);

  useEffect(() => {
    requested.current = new Set();
    setPages(new Map());
    setError(undefined);
    setScrollTop(0);
  }, [datasetId]);

  const wanted = firstPage ? pagesOf(first, Math.max(first + 1, last)) : [1];
  useEffect(() => {
    for (const page of wanted) {
      if (requested.current.has(page)) continue;
      requested.current.add(page);
      api<RowsAnswer>('GET', `/api/public/v2/datasets/${datasetId}/rows`, {
        query: { page, per_page: PAGE_SIZE },
      }).then(
        (answer) => setPages((previous) => new Map(previous).set(page, answer)),
        (failure: Error) => setError(failure.message),
      );
    }
  }, [datasetId, wanted.join()]);

  if (error) return <ErrorMessage>{error}</ErrorMessage>;
  if (!firstPage) return <Loading what="Loading the rows" />;
  const columns = firstPage.columns;
  if (total === 0) return <p class="muted">This version has no rows.</p>;
  const visible: { index: number; cells: RowsAnswer['rows'][number] | undefined }[] = [];
  for (let index = first; index < last; index++)
    visible.push({ index, cells: pages.get(Math.floor(index / PAGE_SIZE) + 1)?.rows[index % PAGE_SIZE] });

  return (
    <section
      class="datasets-grid"
      aria-label={`Rows: ${total.toLocaleString('en-US')}`}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the scrolling region must be reachable by keyboard
      tabIndex={0}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
    >
      <table aria-rowcount={total + 1}>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col" class="datasets-row-number">
              #
            </th>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr class="datasets-spacer" style={{ height: `${first * ROW_HEIGHT}px` }} />
          {visible.map(({ index, cells }) => (
            <tr key={index} aria-rowindex={index + 2} class="datasets-row">
              <td class="datasets-row-number">{index + 1}</td>
              {columns.map((column, at) => (
                <td key={column}>{cells ? cellText(cells[at]?.value) : '…'}</td>
              ))}
            </tr>
          ))}
          <tr class="datasets-spacer" style={{ height: `${(total - last) * ROW_HEIGHT}px` }} />
        </tbody>
      </table>
    </section>
  );
}

function pagesOf(firstRow: number, endRow: number): number[] {
  const pages: number[] = [];
  for (
    let page = Math.floor(firstRow / PAGE_SIZE) + 1;
    page <= Math.floor((endRow - 1) / PAGE_SIZE) + 1;
    page++
  )
    pages.push(page);
  return pages;
}
