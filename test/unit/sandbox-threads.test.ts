import { describe, expect, it } from 'vitest';
import { sandboxThreads } from '#shared/sandbox/sandbox.ts';

describe("the process sandbox's threads", () => {
  it('is one thread in a Lambda container of less than two vCPUs, two beyond, all for its one invocation', () => {
    const lambda = (mb: string) => sandboxThreads({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: mb });
    expect(lambda('1024')).toEqual({ maxWorkers: 1, maxPerOwner: 1 });
    expect(lambda('128')).toEqual({ maxWorkers: 1, maxPerOwner: 1 });
    expect(lambda('3538')).toEqual({ maxWorkers: 2, maxPerOwner: 2 });
    expect(lambda('10240')).toEqual({ maxWorkers: 2, maxPerOwner: 2 });
  });

  it('is three outside Lambda (every workspace in one process), of which one workspace uses two', () => {
    expect(sandboxThreads({})).toEqual({ maxWorkers: 3, maxPerOwner: 2 });
  });
});
