/**
 * Where a report's items live (docs/data-model.md):
 *
 *   PK `W#<ws>#RPT#<id>`               SK `RPT`       the head (definition + latest run state);
 *                                                     GSI1 `W#<ws>#REPORTS` / `<createdAt>#<id>` lists them
 *   PK `W#<ws>#RPT#<id>`               SK `COL#<id>`  one evaluation column
 *   PK `W#<ws>#RPTCOL#<columnId>`      SK `RPTCOL`    column id -> report id (DELETE /report-columns/{id})
 *   PK `W#<ws>#RPT#<id>#RUN#<n>`       SK `B#<batch>` one batch of rows of run n: its claim and its cells
 */
export const reportPartition = (ws: number, reportId: number) => `W#${ws}#RPT#${reportId}`;
export const reportKey = (ws: number, reportId: number) => ({ PK: reportPartition(ws, reportId), SK: 'RPT' });
export const reportListPartition = (ws: number) => `W#${ws}#REPORTS`;
export const COLUMN_SK_PREFIX = 'COL#';
export const columnKey = (ws: number, reportId: number, columnId: number) => ({
  PK: reportPartition(ws, reportId),
  SK: `${COLUMN_SK_PREFIX}${columnId}`,
});
export const columnPointerKey = (ws: number, columnId: number) => ({
  PK: `W#${ws}#RPTCOL#${columnId}`,
  SK: 'RPTCOL',
});
export const runPartition = (ws: number, reportId: number, runNumber: number) =>
  `${reportPartition(ws, reportId)}#RUN#${runNumber}`;
/** Batch sort keys are zero-padded so that a range of rows is a range of keys. */
export const batchKey = (ws: number, reportId: number, runNumber: number, batch: number) => ({
  PK: runPartition(ws, reportId, runNumber),
  SK: `B#${String(batch).padStart(7, '0')}`,
});
