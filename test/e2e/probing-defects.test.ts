import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRequestBody, startTestService, type TestService } from '#test/support/local-service.ts';

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
