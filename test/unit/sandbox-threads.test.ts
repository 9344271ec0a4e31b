import { describe, expect, it } from 'vitest';
import { sandboxThreads } from '#shared/sandbox/sandbox.ts';

describe("the process sandbox's threads", () => {
  it('is one thread in a Lambda container of less than two vCPUs, two beyond and outside Lambda', () => {
    expect(sandboxThreads({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024' })).toBe(1);
    expect(sandboxThreads({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '128' })).toBe(1);
    expect(sandboxThreads({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '3538' })).toBe(2);
    expect(sandboxThreads({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '10240' })).toBe(2);
    expect(sandboxThreads({})).toBe(2);
  });
});
