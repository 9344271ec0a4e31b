import { afterAll, describe, expect, it } from 'vitest';
import { type Grants, installGrantCheck, invokeWith } from '#infra/local/grants.ts';
import { closeSandbox, sandboxPort } from '#shared/sandbox/sandbox.ts';

/**
 * Locally, only a function whose row says `sandbox: true` may run the sandbox: any other would be
 * bundled without the sandbox's files and fail in AWS, so it fails here first.
 */
const resources = {
  tableName: 'table',
  s3Host: '127.0.0.1:9000',
  bucketName: 'bucket',
  eventBusName: 'bus',
  masterKeySecretId: 'key',
  providerCredentialsSecretId: 'provider-credentials',
};
const denied: string[] = [];
const invoke = <T>(grants: Grants, call: () => Promise<T>) =>
  invokeWith({ functionName: 'worker of queue x', grants, resources, onDenied: (m) => denied.push(m) }, call);
const sum = () =>
  sandboxPort.runJavaScript({ code: 'return 1 + 1', data: null, timeoutMs: 1_000, memoryBytes: 1 << 26 });

afterAll(() => closeSandbox());

describe('local sandbox grant', () => {
  it('refuses the sandbox to a function without sandbox: true, and runs it for one with it', async () => {
    installGrantCheck();
    const message = 'worker of queue x may not run the sandbox: its row does not declare sandbox: true';
    await expect(invoke({ table: 'write' }, sum)).rejects.toThrow(message);
    expect(denied).toEqual([message]);
    await expect(invoke({ table: 'write', sandbox: true }, sum)).resolves.toEqual({ ok: true, value: 2 });
    // Outside any invocation (the runtime's own code, tests), nothing is checked.
    await expect(sum()).resolves.toEqual({ ok: true, value: 2 });
  });
});
