import { api } from '../../api/client.ts';
import { useSession } from '../../api/session.ts';
import { useApi } from '../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../components/status.tsx';
import { AppLink } from './link.tsx';

/**
 * The evaluation evidence of a label move: the newest scored report whose PROMPT_TEMPLATE column names
 * each version. The evaluations list neither filters by template nor answers columns, so the newest
 * scored reports (EXAMINED at most) are read one by one for their columns.
 */
const EXAMINED = 30;
const AT_ONCE = 4;

interface ListedReport {
  id: number;
  score: { overall_score?: number | null } | null;
  runs?: ListedReport[];
}
interface Column {
  name: string;
  column_type: string;
  is_part_of_score: boolean;
  configuration: Record<string, unknown>;
  score: number | null;
}
interface ReportView {
  report: { id: number; name: string; score: { overall_score?: number | null } | null };
  report_columns: Column[];
}
interface Evidence {
  reportId: number;
  reportName: string;
  score: number | null;
}

const isScored = (report: ListedReport) => typeof report.score?.overall_score === 'number';

/** The version a PROMPT_TEMPLATE column runs, when it names this template by name and version number. */
function versionOf(column: Column, name: string): number | null {
  if (column.column_type !== 'PROMPT_TEMPLATE') return null;
  const template = column.configuration.template as Record<string, unknown> | undefined;
  if (!template || (template.name ?? template.prompt_name) !== name) return null;
  return typeof template.version_number === 'number' ? template.version_number : null;
}

/** Whether a column reads another's value (a string equal to its name anywhere in its configuration). */
const reads = (column: Column, source: string): boolean =>
  JSON.stringify(column.configuration).includes(JSON.stringify(source)) ||
  (column.column_type === 'CODE_EXECUTION' && String(column.configuration.code ?? '').includes(source));

/**
 * The score a report gives a version: its overall score when it runs only that version of the template;
 * when it runs several, the mean of the scored columns that read this version's answers.
 */
function scoreFor(view: ReportView, name: string, version: number): number | null | undefined {
  const runs = view.report_columns.filter((column) => versionOf(column, name) !== null);
  const mine = runs.filter((column) => versionOf(column, name) === version);
  if (mine.length === 0) return undefined;
  if (runs.every((column) => versionOf(column, name) === version))
    return view.report.score?.overall_score ?? null;
  const scores = view.report_columns
    .filter((column) => column.is_part_of_score && column.score !== null)
    .filter((column) => mine.some((source) => reads(column, source.name)))
    .map((column) => column.score as number);
  return scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null;
}

async function findEvidence(name: string, versions: number[], signal: AbortSignal) {
  const list = await api<{ evaluations: ListedReport[] }>('GET', '/api/public/v2/evaluations', {
    query: { per_page: 100, sort_by: 'updated_at', include_runs: true },
    signal,
  });
  const candidates = list.evaluations
    .flatMap((report) => [report, ...(report.runs ?? [])])
    .filter(isScored)
    .slice(0, EXAMINED);
  const found = new Map<number, Evidence>();
  for (let at = 0; at < candidates.length && found.size < versions.length; at += AT_ONCE) {
    const views = await Promise.all(
      candidates
        .slice(at, at + AT_ONCE)
        .map((report) => api<ReportView>('GET', `/reports/${report.id}`, { signal }).catch(() => null)),
    );
    for (const view of views) {
      if (!view) continue;
      for (const version of versions) {
        const score = scoreFor(view, name, version);
        if (score === undefined || found.has(version)) continue;
        found.set(version, { reportId: view.report.id, reportName: view.report.name, score });
      }
    }
  }
  return found;
}

const formatScore = (score: number | null) =>
  score === null ? '–' : Number.isInteger(score) ? String(score) : score.toFixed(1);

/** Both versions' evaluation scores, each with a link to the report that gave it (for a key that may read reports). */
export function EvaluationEvidence(props: { name: string; from: number; to: number }) {
  return useSession()?.me.permissions.reports ? <EvidenceTable {...props} /> : null;
}

function EvidenceTable({ name, from, to }: { name: string; from: number; to: number }) {
  const evidence = useApi((signal) => findEvidence(name, [from, to], signal), [name, from, to]);
  if (evidence.error) return <ErrorMessage>{evidence.error}</ErrorMessage>;
  if (!evidence.data) return <Loading what="Looking for evaluation reports" />;
  const rows: [string, number][] = [
    [`Version ${from} (now)`, from],
    [`Version ${to} (target)`, to],
  ];
  return (
    <table class="prompts-table prompts-evidence">
      <caption>Evaluation score</caption>
      <thead>
        <tr>
          <th scope="col">Version</th>
          <th scope="col">Score</th>
          <th scope="col">Report</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([title, version]) => {
          const found = evidence.data?.get(version);
          return (
            <tr key={version}>
              <th scope="row">{title}</th>
              <td>{found ? formatScore(found.score) : '–'}</td>
              <td>
                {found ? (
                  <AppLink to={`evaluations?report=${found.reportId}`}>{found.reportName}</AppLink>
                ) : (
                  <span class="muted">no scored report runs this version</span>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
