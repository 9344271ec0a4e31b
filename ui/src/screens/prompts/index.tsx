import { useLocation } from '../../lib/url-state.ts';
import { TemplateList } from './list.tsx';
import { TemplatePage } from './template.tsx';

/**
 * Prompts: `/ui/prompts` lists the templates; `/ui/prompts/<name>` is one template (its labels, its
 * version timeline, a version rendered, a diff of two versions, a label move under review).
 */
export default function PromptsScreen() {
  useLocation();
  const name = templateNameOfPath(location.pathname);
  return name === null ? <TemplateList /> : <TemplatePage key={name} name={name} />;
}

/**
 * The template name of `/ui/prompts/<name>`, read from the raw path (the name is one encoded segment: it
 * may hold `/`, `%` or `?`); null on the list.
 */
function templateNameOfPath(pathname: string): string | null {
  const at = pathname.indexOf('/ui/prompts/');
  if (at < 0) return null;
  const segment = pathname.slice(at + '/ui/prompts/'.length);
  if (!segment) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
