import type { Browser } from 'playwright-core';

/**
 * Debian's Chromium as the browser tests and the bench launch it: headless, no sandbox (root in CI), and
 * none of the background connections that this machine's closed network refuses at every start.
 */
export const CHROMIUM = '/usr/bin/chromium';

const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
}
