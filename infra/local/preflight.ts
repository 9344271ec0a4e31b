import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PROMPT_CACHE_TTL_ENV, parsePromptCacheTtl } from '#shared/prompts/cache-settings.ts';

/**
 * What `npm start` checks before it starts anything (the emulators take 15-20 s on a first start): the
 * settings it reads, the port, and that no other promptops uses the data directory. A failed check is a
 * StartupError whose message is the one line `npm start` prints, saying what to do.
 */
export class StartupError extends Error {}

/** The lock file of a data directory: the pid of the promptops that uses it. */
export const PID_FILE = 'promptops.pid';

export function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3000;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port >= 0 && port <= 65535))
    throw new StartupError(
      `PORT=${raw} is not a port number: give one from 1 to 65535 (0 picks a free one), or unset it for 3000`,
    );
  return port;
}

/** Settings the functions read at load, checked here so that a bad one is a line, not a stack trace. */
export function checkSettings(env: NodeJS.ProcessEnv): void {
  const ttl = env[PROMPT_CACHE_TTL_ENV];
  if (ttl === undefined || ttl === '') return;
  try {
    parsePromptCacheTtl(ttl);
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
}

export function checkPortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new StartupError(`port ${port} is in use: stop the other process or set PORT`)
          : new StartupError(`cannot listen on ${host}:${port}: ${error.code ?? error.message}`),
      ),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Takes the data directory for this process: refused while the pid in its lock file is alive (two
 * services on one dynalite directory would corrupt it); a lock left by a killed process is taken over.
 * Answers the release, which removes the lock only while it is still ours.
 */
export function claimDataDir(dataDir: string): () => void {
  const file = join(dataDir, PID_FILE);
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid))
      throw new StartupError(
        `another promptops is running on this data directory (${dataDir}), pid ${pid}: stop it, or set PROMPTOPS_DATA_DIR to another directory`,
      );
  }
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${process.pid}\n`);
  return () => {
    if (existsSync(file) && readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
  };
}
