import { expect, it } from 'vitest';
import { checkA11y, describeUi, signIn } from './support/browser.ts';

type Node = Record<string, unknown>;
/** The first non-null of its dependencies (a COALESCE runs locally without an LLM). */
const pass = (name: string, dependencies: string[], more: Node = {}): Node => ({
  name,
  node_type: 'COALESCE',
  configuration: { sources: [...dependencies, ...dependencies] },
  dependencies,
  is_output_node: false,
  ...more,
});

describeUi('dashboard workflows', (ui) => {
  it('lists workflows, draws a version lazily, runs it and watches one node fail and one be skipped', async () => {
    const created = await ui.service.call('POST', '/rest/workflows', {
      body: {
        name: 'triage <b>flow</b>',
        commit_message: 'first cut',
        required_input_variables: { topic: 'string' },
        release_labels: ['prod'],
        nodes: [
          pass('start', ['topic']),
          pass('greeting', ['start'], { is_output_node: true }),
          { name: 'review', node_type: 'HUMAN', configuration: {}, dependencies: [], is_output_node: false },
          pass('after-review', ['review'], { is_output_node: true }),
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const page = await ui.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    await page.goto('/ui/workflows');
    await signIn(page, ui.service.apiKey);
    await page.getByRole('link', { name: 'triage <b>flow</b>' }).click();
    await page.getByRole('heading', { name: 'triage <b>flow</b>', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ui/workflows/${encodeURIComponent('triage <b>flow</b>')}`);
    // The labels arrive with the versions, after the heading.
    await expect.poll(() => page.getByRole('link', { name: 'prod → v1' }).count()).toBe(1);

    // The graph comes from its own chunk (dagre) and draws every node as a focusable SVG button.
    await page.locator('[data-node="after-review"]').waitFor();
    expect(requested.some((path) => /\/ui\/assets\/graph-[A-Z0-9]+\.js$/.test(path))).toBe(true);
    expect(await page.locator('.wf-node').count()).toBe(4);
    expect(await page.locator('.wf-edge').count()).toBe(2);
    expect(await page.locator('.workflow-graph b').count()).toBe(0);

    // A node chosen with the keyboard shows its configuration beside the graph.
    await page.locator('[data-node="greeting"]').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'greeting', level: 2 }).waitFor();
    expect(await page.locator('.node-pane').textContent()).toContain('COALESCE');
    expect(new URL(page.url()).searchParams.get('node')).toBe('greeting');

    // A run from the form of the version's input variables, watched until every node is final.
    await page.getByLabel('topic').fill('billing');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect
      .poll(() => new URL(page.url()).searchParams.get('run'), { timeout: 20_000 })
      .toMatch(/^\d+$/);
    await page.getByText(/: finished/).waitFor({ timeout: 60_000 });
    const status = (node: string) => page.locator(`[data-node="${node}"]`).getAttribute('data-status');
    expect(await status('review')).toBe('FAILED');
    expect(await status('after-review')).toBe('SKIPPED');
    expect(await status('greeting')).toBe('SUCCESS');
    expect(await page.locator('.wf-skip-reason').textContent()).toBe('skipped: dependency review failed');
    // The pane shows the selected node's value.
    expect(await page.locator('.node-pane').textContent()).toContain('billing');
    expect(await checkA11y(page, 'workflows-run')).toEqual([]);

    // Reload keeps the run; the failed node's error shows in the pane.
    await page.reload();
    await page.getByText(/: finished/).waitFor();
    await page.locator('[data-node="review"]').click();
    await page.getByRole('heading', { name: 'review', level: 2 }).waitFor();
    expect(await page.locator('.node-error').textContent()).toBe('node type HUMAN is not supported');
    expect(await page.locator('[data-node="review"]').getAttribute('data-status')).toBe('FAILED');

    await page.getByRole('link', { name: 'All workflows' }).click();
    await page.getByRole('table').waitFor();
    expect(await checkA11y(page, 'workflows-list')).toEqual([]);
    await page.close();
  });

  it('keeps the version in the URL: a version chosen in the select shows its own graph; reload and back keep it', async () => {
    for (const value of ['one', 'two']) {
      const created = await ui.service.call('POST', '/rest/workflows', {
        body: {
          name: 'versioned',
          nodes: [pass(`node-${value}`, ['topic'], { is_output_node: true })],
          required_input_variables: { topic: 'string' },
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const page = await ui.newPage();
    await page.goto('/ui/workflows/versioned');
    await signIn(page, ui.service.apiKey);
    await page.locator('[data-node="node-two"]').waitFor();
    await page.getByLabel('Version', { exact: true }).selectOption('1');
    await page.locator('[data-node="node-one"]').waitFor();
    expect(new URL(page.url()).searchParams.get('version')).toBe('1');
    expect(await page.locator('[data-node="node-two"]').count()).toBe(0);
    await page.reload();
    await page.locator('[data-node="node-one"]').waitFor();
    await page.goBack();
    await page.locator('[data-node="node-two"]').waitFor();
    await page.close();
  });

  it("lists past runs newest first and opens one on its version's graph with its node states", async () => {
    const nodes = (value: string) => [
      pass(`node-${value}`, ['topic'], { is_output_node: true }),
      { name: 'review', node_type: 'HUMAN', configuration: {}, dependencies: [], is_output_node: false },
    ];
    for (const value of ['one', 'two']) {
      const created = await ui.service.call('POST', '/rest/workflows', {
        body: { name: 'with-runs', nodes: nodes(value), required_input_variables: { topic: 'string' } },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const runIds: number[] = [];
    for (const version of [1, 2]) {
      const started = await ui.service.call('POST', '/workflows/with-runs/run', {
        body: { workflow_version_number: version, input_variables: { topic: `run of v${version}` } },
      });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      runIds.push(started.body.workflow_version_execution_id);
    }
    await ui.service.messaging.idle();

    const page = await ui.newPage();
    await page.goto('/ui/workflows/with-runs');
    await signIn(page, ui.service.apiKey);
    const rows = page.locator('.workflow-runs-table tbody tr');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(2);
    expect(await rows.locator('td:first-child').allTextContents()).toEqual([...runIds].reverse().map(String));
    expect(await rows.first().textContent()).toContain('v2SUCCESS');

    // The older run opens on version 1's graph, its nodes coloured by the run's results.
    await page.getByRole('button', { name: `Open run ${runIds[0]}` }).click();
    await page.locator('[data-node="node-one"][data-status="SUCCESS"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-node="review"]').getAttribute('data-status')).toBe('FAILED');
    const url = new URL(page.url());
    expect([url.searchParams.get('version'), url.searchParams.get('run')]).toEqual(['1', String(runIds[0])]);
    await page.locator('[data-node="node-one"]').click();
    await expect.poll(() => page.locator('.node-pane').textContent()).toContain('run of v1');
    expect(await checkA11y(page, 'workflows-past-runs')).toEqual([]);
    await page.reload();
    await page.locator('[data-node="node-one"][data-status="SUCCESS"]').waitFor({ timeout: 20_000 });
    await page.close();
  });
});
