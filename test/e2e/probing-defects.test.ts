import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';
import { completion, publishBody, uniqueName } from '#test/support/prompts.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const PROPERTY_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];

describe('query parameters named like object properties', () => {
  const lists = ['/prompt-templates', '/api/public/v2/datasets', '/prompt-templates/missing/labels'];
  const reads = ['/prompt-templates/missing', '/api/public/v2/requests/999999'];

  for (const name of PROPERTY_NAMES) {
    it(`?${name}= is a parameter like any other on every route`, async () => {
      const once = `${encodeURIComponent(name)}=x`;
      const twice = `${once}&${encodeURIComponent(name)}=y`;
      for (const query of [once, twice]) {
        for (const path of lists) {
          const answer = await service.call('GET', `${path}?${query}`);
          expect([200, 404, 422], `${path}?${query} ${JSON.stringify(answer.body)}`).toContain(answer.status);
          expect(answer.status).not.toBe(500);
        }
        for (const path of reads) {
          const answer = await service.call('GET', `${path}?${query}`);
          expect(answer.status, `${path}?${query}`).toBe(404);
        }
        const logged = await service.call('POST', `/log-request?${query}`, { body: logRequestBody() });
        expect(logged.status).toBe(201);
      }
    });
  }

  it('lists answer as without the parameter', async () => {
    const plain = await service.call('GET', '/prompt-templates');
    const odd = await service.call('GET', '/prompt-templates?constructor=1&__proto__=2&toString=3');
    expect(odd.status).toBe(200);
    expect(odd.body).toEqual(plain.body);
  });

  it('?__proto__= pollutes nothing', async () => {
    await service.call('GET', '/prompt-templates?__proto__[polluted]=yes&__proto__.polluted=yes&__proto__=x');
    await service.call('GET', '/api/public/v2/datasets?__proto__=x&__proto__=y');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});

describe('names with lone UTF-16 surrogates', () => {
  // JSON.stringify sends lone surrogates as `\ud800` escapes, as a client would.
  const LONE = ['s\ud800', 's\udc00'];
  const REPLACED = 's\ufffd';
  const wellFormedError = {
    success: false,
    error: 'validation_error',
    message: expect.stringContaining('well-formed Unicode'),
  };

  it('publishes a prompt named with U+FFFD, and refuses the names that would collide with it (422)', async () => {
    expect(
      (await service.call('POST', '/rest/prompt-templates', { body: publishBody(REPLACED) })).status,
    ).toBe(200);
    for (const name of LONE) {
      const answer = await service.rejected('POST', '/rest/prompt-templates', { body: publishBody(name) });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject(wellFormedError);
      expect(answer.body.detail[0].loc).toEqual(['body', 'prompt_template', 'prompt_name']);
    }
    const read = await service.call('GET', `/prompt-templates/${encodeURIComponent(REPLACED)}`);
    expect(read.body.prompt_name).toBe(REPLACED);
    expect(read.body.version).toBe(1);
  });

  it('refuses a lone surrogate in a release label, a snippet reference and an external id of a publish', async () => {
    const name = uniqueName('wf');
    const cases = [
      publishBody(name, completion('hi'), { release_labels: ['prod\ud800'] }),
      publishBody(name, completion('see @@@intro\udc00@@@')),
      publishBody(name, completion('hi'), { external_ids: [{ source: 'git\ud800', external_id: '1' }] }),
    ];
    for (const body of cases) {
      const answer = await service.rejected('POST', '/rest/prompt-templates', { body });
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect(answer.body.message).toContain('well-formed Unicode');
    }
  });

  it('GET by a name percent-encoding a lone surrogate does not reach the U+FFFD template', async () => {
    // %ED%A0%80 is \ud800 in CESU-8, which is not UTF-8.
    for (const path of ['/prompt-templates/s%ED%A0%80', '/prompt-templates/s%ED%A0%80/labels']) {
      const answer = await service.call('GET', path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error).toBe('invalid_path');
    }
    const listed = await service.call('GET', '/prompt-templates', { query: { label: 'a' } });
    expect(listed.status).toBe(200);
  });

  it('creates one dataset group named with U+FFFD and refuses the colliding names (422)', async () => {
    const created = await service.call('POST', '/api/public/v2/dataset-groups', {
      body: { name: 'g\ufffd' },
    });
    expect(created.status).toBe(201);
    for (const name of ['g\ud800', 'g\udc00', '\udc00\ud800']) {
      const answer = await service.rejected('POST', '/api/public/v2/dataset-groups', { body: { name } });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject(wellFormedError);
      expect(answer.body.detail[0].loc).toEqual(['body', 'name']);
    }
  });

  it('refuses external ids with lone surrogates on templates and dataset groups (422)', async () => {
    const template = await service.call('POST', '/rest/prompt-templates', {
      body: publishBody(uniqueName('x')),
    });
    const group = await service.call('POST', '/api/public/v2/dataset-groups', {
      body: { name: uniqueName('g') },
    });
    const attach = [
      `/prompt-templates/${template.body.id}/external-ids`,
      `/api/public/v2/dataset-groups/${group.body.dataset_group.id}/external-ids`,
    ];
    for (const path of attach) {
      for (const mapping of [
        { source: 'jira\ud800', external_id: 'P-1' },
        { source: 'jira', external_id: 'P-1\udc00' },
      ]) {
        const answer = await service.rejected('POST', path, { body: mapping });
        expect(answer.status, path).toBe(422);
        expect(answer.body).toMatchObject(wellFormedError);
      }
    }
    const withIds = await service.rejected('POST', '/api/public/v2/dataset-groups', {
      body: { name: uniqueName('g'), external_ids: [{ source: 'a', external_id: 'b\ud800' }] },
    });
    expect(withIds.status).toBe(422);
  });

  it('refuses a lone surrogate in log-request prompt_name, but keeps it in text content', async () => {
    const named = await service.rejected('POST', '/log-request', {
      body: logRequestBody({ prompt_name: 's\ud800' }),
    });
    expect(named.status).toBe(422);
    expect(named.body.detail[0].loc).toEqual(['body', 'prompt_name']);

    const text = logRequestBody({
      input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'half \ud800' }] }] },
      metadata: { note: 'half \udc00' },
    });
    const logged = await service.call('POST', '/log-request', { body: text });
    expect(logged.status).toBe(201);
  });

  it('refuses a lone surrogate in a dataset file name (422)', async () => {
    const answer = await service.rejected('POST', '/api/public/v2/dataset-versions/upload-url', {
      body: { file_name: 'a\ud800.csv' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject(wellFormedError);
  });
});

describe('sort_order needs sort_by', () => {
  it('answers 422 at sort_order on every list and search route that sorts', async () => {
    const group = await service.call('POST', '/api/public/v2/dataset-groups', {
      body: { name: uniqueName('s') },
    });
    const alone = [
      service.rejected('GET', '/prompt-templates?sort_order=asc'),
      service.rejected('GET', '/api/public/v2/datasets?sort_order=asc'),
      service.rejected('POST', '/api/public/v2/requests/search', { body: { sort_order: 'asc' } }),
      service.rejected('POST', '/api/public/v2/dataset-versions/from-filter-params', {
        body: { dataset_group_id: group.body.dataset_group.id, sort_order: 'desc' },
      }),
    ];
    for (const answer of await Promise.all(alone)) {
      expect(answer.status).toBe(422);
      const where = answer.body.detail[0].loc[0];
      expect(answer.body.message).toBe(`Invalid ${where}.sort_order: sort_order must be given with sort_by`);
      expect(answer.body.detail[0].loc.at(-1)).toBe('sort_order');
    }
  });

  it('takes sort_order with sort_by, and neither (the default order)', async () => {
    const answers = await Promise.all([
      service.call('GET', '/prompt-templates?sort_by=name&sort_order=asc'),
      service.call('GET', '/prompt-templates'),
      service.call('GET', '/api/public/v2/datasets?sort_by=name&sort_order=asc'),
      service.call('GET', '/api/public/v2/datasets'),
      service.call('POST', '/api/public/v2/requests/search', {
        body: { sort_by: 'cost', sort_order: 'asc' },
      }),
      service.call('POST', '/api/public/v2/requests/search', { body: { sort_order: null } }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
  });
});

describe('include_prompt_name', () => {
  it('leaves prompt_name out of search items when false, and keeps it otherwise', async () => {
    const name = uniqueName('named');
    await service.call('POST', '/rest/prompt-templates', { body: publishBody(name) });
    const logged = await service.call('POST', '/log-request', {
      body: logRequestBody({ prompt_name: name, tags: [name] }),
    });
    expect(logged.status).toBe(201);
    const search = (extra: Record<string, unknown>) =>
      service.call('POST', '/api/public/v2/requests/search', {
        body: { filter_group: { filters: [{ field: 'tags', operator: 'in', value: [name] }] }, ...extra },
      });

    const without = await search({ include_prompt_name: false });
    expect(without.status).toBe(200);
    expect(without.body.items).toHaveLength(1);
    expect(without.body.items[0]).not.toHaveProperty('prompt_name');
    expect(without.body.items[0].prompt_id).toEqual(expect.any(Number));
    for (const extra of [{ include_prompt_name: true }, {}, { include_prompt_name: null }]) {
      const answer = await search(extra);
      expect(answer.body.items[0].prompt_name, JSON.stringify(extra)).toBe(name);
    }
  });
});

describe('413 messages', () => {
  const MB = 1024 * 1024;

  it('names the Lambda payload limit, in Lambda’s words, when only the escaped body passes it', async () => {
    // Each `"` in a JSON string is sent as \" (2 bytes) and is \\\" (4 bytes) inside the event.
    const body = JSON.stringify(logRequestBody({ note: '"'.repeat(Math.floor(2.5 * MB)) }));
    expect(Buffer.byteLength(body)).toBeLessThan(6 * MB);

    const answer = await service.rejected('POST', '/log-request', { rawBody: body });

    expect(answer.status).toBe(413);
    expect(answer.body.error).toBe('payload_too_large');
    expect(answer.body.message).toMatch(
      /^Request must be smaller than 6291456 bytes for the InvokeFunction operation: with its body escaped into the Lambda event, this request is \d+ bytes/,
    );
    const stated = Number(/this request is (\d+) bytes/.exec(answer.body.message)?.[1]);
    expect(stated).toBeGreaterThan(6 * MB);
    expect(answer.body.message).not.toContain('Request body exceeds');
  });

  it('names the body limit when the body itself passes it', async () => {
    const answer = await service.rejected('POST', '/log-request', { rawBody: 'x'.repeat(6 * MB + 1) });
    expect(answer.status).toBe(413);
    expect(answer.body.message).toBe('Request body exceeds 6291456 bytes');
  });
});
