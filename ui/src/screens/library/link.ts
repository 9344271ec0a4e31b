import { dashboardUrl, navigate } from '../../lib/url-state.ts';

/** An internal link's props: a plain click stays in the app, a middle or modified click opens a tab. */
export function link(path: string) {
  return {
    href: dashboardUrl(path),
    onClick: (event: MouseEvent) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(path);
    },
  };
}

const name = (value: string) => encodeURIComponent(value);

/** The dashboard path that opens an entity of the folder tree in its own screen, when one exists. */
export function entityPath(type: string, id: number | string, entityName: string): string | null {
  switch (type) {
    case 'PROMPT':
    case 'SNIPPET':
      return `prompts/${name(entityName)}`;
    case 'WORKFLOW':
      return `workflows/${name(entityName)}`;
    case 'DATASET':
      return `datasets?group=${name(String(id))}`;
    case 'REPORT':
      return `evaluations?report=${name(String(id))}`;
    case 'TOOL':
      return `library?view=tools&tool=${name(String(id))}`;
    case 'SKILL_COLLECTION':
      return `library?view=skills&collection=${name(String(id))}`;
    default:
      return null;
  }
}
