import { expect, it } from 'vitest';
import { logRequestBody } from '#test/support/local-service.ts';
import { checkA11y, describeUi, signIn } from './support/browser.ts';

const hex = (n: number, seed: number) => seed.toString(16).padStart(n, '0').slice(-n);
const START_NS = 1_772_445_600_000_000_000n;
const MS = 1_000_000n;

interface SpanInput {
  name: string;
  spanId: string;
  parentId: string | null;
  startMs: number;
  endMs: number;
  error?: boolean;
  logRequest?: Record<string, unknown>;
  attributes?: Record<string, unknown>;
}

function span(traceId: string, input: SpanInput) {
  return {
    name: input.name,
    context: { trace_id: traceId, span_id: input.spanId },
    kind: 'SpanKind.INTERNAL',
    parent_id: input.parentId,
    // Unix nanoseconds exceed a double's precision: sent as JSON numbers written from BigInt text.
    start_time: `@@${START_NS + BigInt(input.startMs) * MS}@@`,
    end_time: `@@${START_NS + BigInt(input.endMs) * MS}@@`,
    status: { status_code: input.error ? 'StatusCode.ERROR' : 'StatusCode.OK' },
    attributes: input.attributes ?? {},
    ...(input.logRequest ? { log_request: input.logRequest } : {}),
  };
}

/** JSON with the `@@digits@@` placeholders written as bare numbers (exact nanosecond times). */
const bodyOf = (spans: unknown[]) => JSON.stringify({ spans }).replace(/"@@(\d+)@@"/g, '$1');

// A browser test drives many steps: its time limit is the page's, not a unit test's.
describeUi('dashboard traces', (ui) => {
  const smallTrace = hex(32, 0xabc1);
  const bigTrace = hex(32, 0xabc2);
  let logId = 0;

  async function send(spans: unknown[]) {
    const response = await fetch(`${ui.service.baseUrl}/spans-bulk`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-KEY': ui.service.apiKey },
      body: bodyOf(spans),
    });
    const answer = (await response.json()) as { request_logs: { id: number }[] };
    expect(response.status, JSON.stringify(answer)).toBe(201);
    return answer;
  }

  it('shows a trace as a waterfall; an LLM span links to its request log; names stay text', async () => {
    const answer = await send([
      span(smallTrace, {
        name: 'handle request',
        spanId: hex(16, 1),
        parentId: null,
        startMs: 0,
        endMs: 1200,
      }),
      span(smallTrace, {
        name: 'retrieve <img src=x onerror=alert(1)>',
        spanId: hex(16, 2),
        parentId: hex(16, 1),
        startMs: 10,
        endMs: 300,
        attributes: { 'db.statement': '<script>alert(1)</script>' },
      }),
      span(smallTrace, {
        name: 'openai.chat',
        spanId: hex(16, 3),
        parentId: hex(16, 1),
        startMs: 320,
        endMs: 1100,
        logRequest: logRequestBody(),
      }),
      span(smallTrace, {
        name: 'tool lookup',
        spanId: hex(16, 4),
        parentId: hex(16, 3),
        startMs: 400,
        endMs: 450,
        error: true,
      }),
    ]);
    logId = answer.request_logs[0]!.id;

    const page = await ui.newPage();
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    await page.goto('/ui/traces');
    await signIn(page, ui.service.apiKey);
    await page.getByLabel('Trace id').fill(smallTrace);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByRole('button', { name: 'handle request', exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('trace')).toBe(smallTrace);

    // Four rows in start order, the failed one marked for every reader.
    const names = await page.locator('.span-select').allTextContents();
    expect(names).toEqual([
      'handle request',
      'retrieve <img src=x onerror=alert(1)>',
      'openai.chat',
      'tool lookup (error)',
    ]);
    expect(await page.locator('.waterfall img').count()).toBe(0);
    await expect.poll(() => page.locator('.span-duration').first().textContent()).toBe('1.20 s');

    // Bars sit on the shared axis: the LLM span starts about 320/1200 of the way along.
    const track = await page.locator('.span-track').first().boundingBox();
    const bar = await page.locator('.span-bar').nth(2).boundingBox();
    expect(track && bar).toBeTruthy();
    expect((bar!.x - track!.x) / track!.width).toBeCloseTo(320 / 1200, 1);

    await page.getByRole('button', { name: 'retrieve <img src=x onerror=alert(1)>', exact: true }).click();
    await page.getByRole('heading', { name: 'retrieve <img src=x onerror=alert(1)>', level: 2 }).waitFor();
    expect(await page.locator('.span-details').textContent()).toContain('<script>alert(1)</script>');
    expect(await page.locator('.span-details script').count()).toBe(0);
    expect(await checkA11y(page, 'traces')).toEqual([]);

    // Reload keeps the trace and the selected span.
    await page.reload();
    await page.getByRole('heading', { name: 'retrieve <img src=x onerror=alert(1)>', level: 2 }).waitFor();

    // j moves to the next span; the LLM span links to its request log.
    await page.getByRole('button', { name: 'retrieve <img src=x onerror=alert(1)>', exact: true }).focus();
    await page.keyboard.press('j');
    await page.getByRole('heading', { name: 'openai.chat', level: 2 }).waitFor();
    await page.getByRole('link', { name: `Open request ${logId}` }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/ui/requests');
    expect(new URL(page.url()).searchParams.get('sel')).toBe(String(logId));

    // Back returns to the trace.
    await page.goBack();
    await page.getByRole('heading', { name: 'openai.chat', level: 2 }).waitFor();

    // Collapsing a span hides its children.
    await page.getByRole('button', { name: 'Hide the 2 children of handle request' }).click();
    expect(await page.locator('.span-select').count()).toBe(1);
    expect(dialogs).toBe(0);
    await page.close();
  }, 120_000);

  it('keeps a trace of 2,000 spans windowed: a few dozen rows in the DOM, the last one reachable', async () => {
    const spans = [
      span(bigTrace, { name: 'batch', spanId: hex(16, 0x1000), parentId: null, startMs: 0, endMs: 4000 }),
    ];
    for (let i = 1; i < 2000; i++)
      spans.push(
        span(bigTrace, {
          name: `step ${i}`,
          spanId: hex(16, 0x1000 + i),
          parentId: hex(16, 0x1000),
          startMs: i * 2,
          endMs: i * 2 + 1,
        }),
      );
    await send(spans.slice(0, 1000));
    await send(spans.slice(1000));

    const page = await ui.newPage();
    await page.goto(`/ui/traces?trace=${bigTrace}`);
    await signIn(page, ui.service.apiKey);
    await page.getByRole('button', { name: 'batch', exact: true }).waitFor();
    expect(await page.locator('.trace-summary').textContent()).toContain('2,000');
    expect(await page.locator('.waterfall-row').count()).toBeLessThan(60);

    await page.locator('.waterfall-viewport').evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    await page.getByRole('button', { name: 'step 1999', exact: true }).waitFor();
    expect(await page.locator('.waterfall-row').count()).toBeLessThan(60);
    await page.close();
  }, 120_000);

  it('lists the traces newest first with their counts, errors marked; a row opens its waterfall', async () => {
    const minutes = (n: number) => n * 60_000;
    const older = hex(32, 0xabc3);
    const newer = hex(32, 0xabc4);
    await send([
      span(older, {
        name: 'nightly import',
        spanId: hex(16, 0x21),
        parentId: null,
        startMs: minutes(10),
        endMs: minutes(10) + 750,
      }),
      span(older, {
        name: 'parse',
        spanId: hex(16, 0x22),
        parentId: hex(16, 0x21),
        startMs: minutes(10) + 5,
        endMs: minutes(10) + 90,
        error: true,
      }),
    ]);
    await send([
      span(newer, {
        name: 'chat turn',
        spanId: hex(16, 0x31),
        parentId: null,
        startMs: minutes(20),
        endMs: minutes(20) + 2500,
      }),
      span(newer, {
        name: 'openai.chat',
        spanId: hex(16, 0x32),
        parentId: hex(16, 0x31),
        startMs: minutes(20) + 10,
        endMs: minutes(20) + 2400,
        logRequest: logRequestBody(),
      }),
    ]);

    const page = await ui.newPage();
    await page.goto('/ui/traces');
    await signIn(page, ui.service.apiKey);
    await page.getByRole('link', { name: 'chat turn', exact: true }).waitFor();

    // Newest first: the two traces of this test, then the two of the tests before (both at START_NS).
    const rows = page.locator('.traces-table tbody tr');
    expect(await rows.count()).toBe(4);
    const cells = (index: number) => rows.nth(index).locator('td').allTextContents();
    expect(await cells(0)).toEqual(['2026-03-02 10:20:00.000 UTC', 'chat turn', '2.50 s', '2', '0', '1']);
    expect(await cells(1)).toEqual([
      '2026-03-02 10:10:00.000 UTC',
      'nightly import',
      '750 ms',
      '2',
      '● 1 failed',
      '0',
    ]);
    expect((await cells(2))[1]).toBe('batch');
    expect((await cells(3))[1]).toBe('handle request');
    expect(await checkA11y(page, 'traces-list')).toEqual([]);

    // A time range narrows the list to traces started in it (these all started in March), kept in the URL.
    const range = page.getByLabel('Time range');
    await range.selectOption({ label: 'Last 30 days' });
    await page.getByText('No trace started in this time range.').waitFor();
    expect(await rows.count()).toBe(0);
    expect(new URL(page.url()).searchParams.get('range')).toBe('30d');
    await range.selectOption({ label: 'Any time' });
    await page.getByRole('link', { name: 'chat turn', exact: true }).waitFor();
    expect(await rows.count()).toBe(4);

    // A row opens the trace's waterfall; back returns to the list.
    await page.getByRole('link', { name: 'nightly import', exact: true }).click();
    await page.getByRole('button', { name: 'parse (error)', exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('trace')).toBe(older);
    await page.goBack();
    await page.getByRole('link', { name: 'chat turn', exact: true }).waitFor();

    // j then Enter opens the second trace from the keyboard.
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'nightly import', exact: true }).waitFor();
    await page.getByRole('button', { name: '← All traces' }).click();
    await page.getByRole('link', { name: 'chat turn', exact: true }).waitFor();
    await page.close();
  }, 120_000);

  it('says how traces arrive in a workspace that has none, then pages through 51 traces', async () => {
    const key = await ui.service.otherWorkspaceKey('traces-ui-paging');
    const page = await ui.newPage();
    await page.goto('/ui/traces');
    await signIn(page, key);
    const notice = page.locator('.traces-empty');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('/v1/traces');
    expect(await notice.textContent()).toContain('/spans-bulk');
    expect(await page.locator('.traces-table').count()).toBe(0);
    expect(await checkA11y(page, 'traces-empty')).toEqual([]);

    // 51 one-span traces, trace i starting i seconds in: 50 on the first page, the oldest on the second.
    const spans = Array.from({ length: 51 }, (_, i) =>
      span(hex(32, 0xf000 + i), {
        name: `job ${i}`,
        spanId: hex(16, 0xf000 + i),
        parentId: null,
        startMs: i * 1000,
        endMs: i * 1000 + 10,
      }),
    );
    const response = await fetch(`${ui.service.baseUrl}/spans-bulk`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-KEY': key },
      body: bodyOf(spans),
    });
    expect(response.status).toBe(201);
    await page.reload();
    await page.getByRole('link', { name: 'job 50', exact: true }).waitFor();
    const rows = page.locator('.traces-table tbody tr');
    expect(await rows.count()).toBe(50);
    expect(await rows.last().locator('a').textContent()).toBe('job 1');

    await page.getByRole('button', { name: 'Older' }).click();
    await page.getByRole('link', { name: 'job 0', exact: true }).waitFor();
    expect(await rows.count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);

    // The page is in the URL: reload keeps it, Newer returns to the first.
    await page.reload();
    await page.getByRole('link', { name: 'job 0', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Newer' }).click();
    await page.getByRole('link', { name: 'job 50', exact: true }).waitFor();
    await page.close();
  }, 120_000);
});
