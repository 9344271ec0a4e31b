import { useQueryParam } from '../../lib/url-state.ts';
import { FoldersView } from './folders.tsx';
import { link } from './link.ts';
import { SkillsView } from './skills.tsx';
import { ToolsView } from './tools.tsx';

const VIEWS = {
  folders: { title: 'Folders', component: FoldersView },
  tools: { title: 'Tools', component: ToolsView },
  skills: { title: 'Skill collections', component: SkillsView },
} as const;
type ViewName = keyof typeof VIEWS;
const isView = (name: string): name is ViewName => Object.hasOwn(VIEWS, name);

/**
 * Library: the browsers of what a workspace files away, one screen with three views in the URL
 * (`?view=folders|tools|skills`): the folder tree with every kind in it, the tool registry, and skill
 * collections. One chunk: the views share the tree, the links and the layout, and the folder tree links
 * into the other two.
 */
export default function LibraryScreen() {
  const [viewParam] = useQueryParam('view', 'folders');
  const view: ViewName = isView(viewParam) ? viewParam : 'folders';
  const View = VIEWS[view].component;
  return (
    <section aria-labelledby="screen-title" class="library">
      <h1 id="screen-title">Library</h1>
      <nav aria-label="Library views">
        <ul class="library-views">
          {(Object.keys(VIEWS) as ViewName[]).map((name) => (
            <li key={name}>
              <a {...link(`library?view=${name}`)} aria-current={name === view ? 'page' : undefined}>
                {VIEWS[name].title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <View />
    </section>
  );
}
