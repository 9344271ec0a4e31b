import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { publishBody } from '#test/support/prompts.ts';
import { workflowBody } from '#test/support/workflows.ts';
import { checkA11y, describeUi, signIn } from './support/browser.ts';

const TOOLS = '/api/public/v2/tool-registry';
const COLLECTIONS = '/api/public/v2/skill-collections';
const SKILL_MD =
  '---\nname: pdf-tools\ndescription: Reads <b>PDF</b> files\n---\n# PDF tools\nUse `run.sh`.\n';

describeUi('dashboard library', (ui) => {
  async function created<T = any>(method: string, path: string, body: unknown, status = 201): Promise<T> {
    const answer = await ui.service.call(method, path, { body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    return answer.body as T;
  }
  /** Where the API says an entity is now (the dashboard's move must have reached it). */
  async function folderOf(type: string, id: number | string): Promise<number | null | undefined> {
    const listed = await ui.service.call('GET', '/api/public/v2/folders/entities', {
      query: { flatten: 'true', filter_type: type },
    });
    return (listed.body.entities as { id: number | string; folder_id: number | null }[]).find(
      (entity) => entity.id === id,
    )?.folder_id;
  }

  it('shows every kind in the folder tree and moves entities by "Move to…" (keyboard) and by drag', async () => {
    const team = (await created('POST', '/api/public/v2/folders', { name: 'Team' })).folder.id as number;
    const archive = (await created('POST', '/api/public/v2/folders', { name: 'Archive' })).folder
      .id as number;
    await created('POST', '/api/public/v2/folders', { name: 'Evals', parent_id: team });
    const prompt = (await created('POST', '/rest/prompt-templates', publishBody('welcome <i>mail</i>'), 200))
      .id as number;
    await created('POST', '/rest/workflows', workflowBody('triage flow', { folder_id: team }));
    const tool = (
      await created('POST', TOOLS, {
        name: 'weather',
        tool_definition: { name: 'get_weather', parameters: { type: 'object' } },
      })
    ).tool_registry.id as number;
    await created('POST', COLLECTIONS, {
      name: 'docs-skills',
      files: [{ path: 'README.md', content: 'Hi\n' }],
    });

    const page = await ui.newPage();
    await page.goto('/ui/library');
    await signIn(page, ui.service.apiKey);
    const tree = page.getByRole('tree', { name: 'Folders and what they hold' });
    const item = (name: string) => tree.getByRole('treeitem', { name, exact: true });
    await item('weather Tool').waitFor();
    expect(await tree.getByRole('treeitem').allTextContents()).toEqual([
      '▾Workspace root',
      '▸Archive Folder',
      '▸Team Folder',
      'welcome <i>mail</i> Prompt',
      'docs-skills Skill collection',
      'weather Tool',
    ]);
    expect(await page.locator('.library-tree i').count()).toBe(0);

    // The keyboard: arrows move through the tree, → opens a folder; the selection is in the URL.
    await item('Workspace root').click();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await item('Evals Folder').waitFor();
    expect(await item('triage flow Workflow').getAttribute('aria-level')).toBe('3');
    expect(new URL(page.url()).searchParams.get('sel')).toBe(`FOLDER:${team}`);
    expect(await item('Team Folder').getAttribute('aria-expanded')).toBe('true');

    // "Move to…" from the keyboard: the prompt goes into Team / Evals.
    await item('welcome <i>mail</i> Prompt').click();
    await page.getByRole('heading', { name: 'welcome <i>mail</i>', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Move to…' }).press('Enter');
    const target = page.getByLabel('Move welcome <i>mail</i> to');
    await expect
      .poll(() => target.evaluate((element) => element === (globalThis as any).document.activeElement))
      .toBe(true);
    await target.selectOption({ label: 'Team / Evals' });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Moved welcome <i>mail</i> to Evals.' }).waitFor();
    const evals = (
      await ui.service.call('GET', '/api/public/v2/folders/resolve-id', { query: { path: 'Team.Evals' } })
    ).body.id as number;
    expect(await folderOf('PROMPT', prompt)).toBe(evals);
    await expect.poll(() => item('welcome <i>mail</i> Prompt').getAttribute('aria-level')).toBe('4');

    // Drag and drop: the tool onto Archive.
    await item('weather Tool').dragTo(item('Archive Folder'));
    await page.getByRole('status').filter({ hasText: 'Moved weather to Archive.' }).waitFor();
    expect(await folderOf('TOOL', tool)).toBe(archive);
    await expect.poll(() => item('weather Tool').getAttribute('aria-level')).toBe('3');

    // Folders: create, rename, and a delete the API refuses while the folder holds something.
    await item('Archive Folder').click();
    await page.getByLabel('New folder').fill('Old');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await item('Old Folder').waitFor();
    page.expectConsoleError(/409/);
    await page.getByRole('button', { name: 'Delete folder…' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/holds 1 folder/);
    await item('Old Folder').click();
    await page.getByLabel('Rename to').fill('Older');
    await page.getByRole('button', { name: 'Rename' }).click();
    await item('Older Folder').waitFor();

    // Reload keeps the view; an entity's pane opens it in its own screen.
    await page.reload();
    await item('welcome <i>mail</i> Prompt').click();
    expect(await checkA11y(page, 'library-folders')).toEqual([]);
    await page.getByRole('link', { name: 'Open welcome <i>mail</i>' }).click();
    await expect
      .poll(() => new URL(page.url()).pathname)
      .toBe(`/ui/prompts/${encodeURIComponent('welcome <i>mail</i>')}`);
    await page.close();
  });

  it("lists tools, shows a tool's versions and a version's definition and code", async () => {
    await created('POST', TOOLS, {
      name: 'adder',
      description: 'Adds two numbers',
      tool_definition: { name: 'add', description: 'first', parameters: { type: 'object' } },
      execution: { type: 'code', language: 'javascript', code: 'return { sum: args.a + args.b };' },
    });
    await created('POST', `${TOOLS}/adder/versions`, {
      tool_definition: {
        name: 'add',
        description: 'second',
        parameters: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
      },
      commit_message: 'typed <b>a</b>',
      release_labels: ['prod'],
    });

    const page = await ui.newPage();
    await page.goto('/ui/library?view=tools');
    await signIn(page, ui.service.apiKey);
    await page.getByRole('link', { name: 'adder' }).click();
    await page.getByRole('heading', { name: 'Version 2', level: 3 }).waitFor();
    const versions = page.getByRole('navigation', { name: 'Versions of the tool' });
    expect(await versions.getByRole('link').allTextContents()).toEqual(['Version 2 (prod)', 'Version 1']);
    expect(await page.locator('.json-view').textContent()).toContain('"required": [\n      "a"\n    ]');
    expect(await page.locator('.library-version').textContent()).toContain('typed <b>a</b>');
    expect(await page.getByText('No code: the caller runs this tool.').count()).toBe(1);
    expect(await checkA11y(page, 'library-tools')).toEqual([]);

    await versions.getByRole('link', { name: 'Version 1' }).click();
    await page.getByRole('heading', { name: 'Version 1', level: 3 }).waitFor();
    expect(new URL(page.url()).searchParams.get('version')).toBe('1');
    expect(await page.locator('.json-view').textContent()).toContain('"description": "first"');
    expect(await page.locator('.library-code').textContent()).toBe('return { sum: args.a + args.b };');

    // Version 1 compared with version 2: what changed, line by line, as text.
    await page.getByLabel('Compare with').selectOption('2');
    await page.getByText('Changes from version 2 to version 1.').waitFor();
    expect(new URL(page.url()).searchParams.get('compare')).toBe('2');
    expect(await page.locator('.library-diff ins').allTextContents()).toEqual([
      '  "description": "first",\n',
      '    "type": "object"\n',
      'return { sum: args.a + args.b };',
    ]);
    expect(await page.locator('.library-diff del').first().textContent()).toBe(
      '  "description": "second",\n',
    );
    expect(await checkA11y(page, 'library-tool-diff')).toEqual([]);
    await page.close();
  });

  it("reads a skill collection's files and downloads it as a ZIP", async () => {
    await created('POST', COLLECTIONS, {
      name: 'pdf-kit',
      provider: 'claude_code',
      files: [
        { path: 'pdf-tools/SKILL.md', content: SKILL_MD },
        { path: 'pdf-tools/scripts/run.sh', content: 'echo "<script>alert(1)</script>"\n' },
        { path: 'AGENTS.md', content: 'Agents read this.\n' },
      ],
    });
    await created('POST', `${COLLECTIONS}/pdf-kit/versions`, {
      file_updates: [{ path: 'AGENTS.md', content: 'Agents read this, version 2.\n' }],
      commit_message: 'second',
    });

    const page = await ui.newPage();
    await page.goto('/ui/library?view=skills');
    await signIn(page, ui.service.apiKey);
    await page.getByRole('link', { name: 'pdf-kit' }).click();
    const files = page.getByRole('navigation', { name: 'Files of the collection' });
    await files.getByRole('link', { name: 'SKILL.md' }).click();
    await page.getByRole('heading', { name: 'pdf-tools/SKILL.md', level: 3 }).waitFor();
    expect(await page.locator('.library-code').textContent()).toBe(SKILL_MD);
    expect(await page.locator('.library-version b').count()).toBe(0);
    expect(await files.textContent()).toContain('scripts/');
    expect(await checkA11y(page, 'library-skills')).toEqual([]);

    // An older version keeps the file open; its AGENTS.md is the first one.
    await page.getByLabel('Version').selectOption('1');
    await files.getByRole('link', { name: 'AGENTS.md' }).click();
    await expect.poll(() => page.locator('.library-code').textContent()).toBe('Agents read this.\n');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download ZIP' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('pdf-kit-v1.zip');
    const bytes = readFileSync((await download.path())!);
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    expect(bytes.includes(Buffer.from('pdf-tools/scripts/run.sh'))).toBe(true);
    await page.close();
  });
  it('keeps a folder of 150 entries windowed: a few dozen rows in the DOM, End reaches the last', async () => {
    const bulk = (await created('POST', '/api/public/v2/folders', { name: 'Bulk' })).folder.id as number;
    for (let start = 0; start < 150; start += 15)
      await Promise.all(
        Array.from({ length: 15 }, (_, offset) =>
          created('POST', '/api/public/v2/folders', {
            name: `child ${String(start + offset).padStart(3, '0')}`,
            parent_id: bulk,
          }),
        ),
      );

    const page = await ui.newPage();
    await page.goto(`/ui/library?sel=FOLDER:${bulk}`);
    await signIn(page, ui.service.apiKey);
    const tree = page.getByRole('tree', { name: 'Folders and what they hold' });
    await tree.getByRole('treeitem', { name: 'Bulk Folder' }).click();
    await page.keyboard.press('ArrowRight');
    await tree.getByRole('treeitem', { name: 'child 000 Folder' }).waitFor();
    expect(await tree.getByRole('treeitem').count()).toBeLessThan(70);
    // End goes to the tree's last row, far below (the folder's last child, or an entity of the root after
    // it when the other tests' seeds are there); ↑ comes back to the folder's last child.
    const focused = () =>
      page.evaluate(() => (globalThis as any).document.activeElement?.textContent as string | undefined);
    await page.keyboard.press('End');
    await expect.poll(focused).not.toBe('▾Bulk Folder');
    // Each ↑ is awaited until focus has moved, so a slow render cannot make the loop overshoot or stop short.
    for (let presses = 0; presses < 200 && !(await focused())?.startsWith('▸child 149'); presses++) {
      const before = await focused();
      await page.keyboard.press('ArrowUp');
      await expect.poll(focused).not.toBe(before);
    }
    const last = tree.getByRole('treeitem', { name: 'child 149 Folder' });
    expect(await focused()).toBe('▸child 149 Folder');
    expect(await last.getAttribute('aria-posinset')).toBe('150');
    expect(await tree.getByRole('treeitem').count()).toBeLessThan(70);
    // Keys pressed faster than the tree renders are each counted (holding ↑ skips no row): five in one task.
    await page.evaluate(() => {
      const row = (globalThis as any).document.activeElement;
      for (let presses = 0; presses < 5; presses++)
        row.dispatchEvent(
          new (globalThis as any).KeyboardEvent('keydown', { key: 'ArrowUp', bubbles: true }),
        );
    });
    await expect.poll(focused).toBe('▸child 144 Folder');
    await page.close();
  });
});
