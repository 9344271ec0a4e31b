import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { type BenchRow, percentile } from './support.ts';

const run = promisify(execFile);
const RUNS = 5;
/** Linux's USER_HZ: /proc counts CPU time in these ticks per second. */
const TICKS_PER_SECOND = 100;

/**
 * `npm run keys` as a user runs it (npm, then the script), against the bench's local table: each
 * command's wall time from the shell's point of view and the CPU time of its processes (npm's
 * included), median of RUNS (the first run may fill Node's compile cache). On a busy machine the wall
 * time grows with the load; the CPU time is what the command itself costs.
 */
export async function benchKeysCommands(table: {
  dynamodbEndpoint: string;
  tableName: string;
}): Promise<BenchRow[]> {
  const env = { ...process.env, DYNAMODB_ENDPOINT: table.dynamodbEndpoint, TABLE_NAME: table.tableName };
  const keys = async (...args: string[]) => {
    const cpuBefore = childrenCpuMs();
    const started = performance.now();
    const { stdout } = await run('npm', ['run', '-s', 'keys', '--', ...args], { env });
    return { wall: performance.now() - started, cpu: childrenCpuMs() - cpuBefore, stdout };
  };
  const samples: Record<string, { wall: number; cpu: number }[]> = {
    '--help': [],
    create: [],
    list: [],
    revoke: [],
  };
  for (let i = 0; i < RUNS; i++) {
    samples['--help']?.push(await keys('--help'));
    const created = await keys('create', '--workspace', 'bench-keys');
    samples.create?.push(created);
    const keyId = /key id (\d+)/.exec(created.stdout)?.[1] ?? '';
    samples.list?.push(await keys('list', '--workspace', 'bench-keys'));
    samples.revoke?.push(await keys('revoke', '--workspace', 'bench-keys', '--key-id', keyId));
  }
  return Object.entries(samples).map(([command, runs]) => ({
    name: `npm run keys -- ${command}: wall / CPU, median of ${RUNS} (ms)`,
    value: `${percentile(
      runs.map((one) => one.wall),
      50,
    ).toFixed(0)} / ${percentile(
      runs.map((one) => one.cpu),
      50,
    ).toFixed(0)}`,
    target: 'wall < 2000',
  }));
}

/** CPU time (user + system) of this process's finished children and theirs, from /proc (Linux); else 0. */
function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name in parentheses; cutime and cstime are the 16th and 17th of the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}
