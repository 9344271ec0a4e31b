import { afterEach, describe, expect, it } from 'vitest';
import { ENV } from '#shared/platform/config.ts';
import { checkOutboundUrl } from '#shared/platform/outbound-http.ts';

/**
 * The registration-time check of a URL a user registers (webhooks): no DNS, so it decides on the URL
 * alone. What it lets through is still filtered on its resolved address when a request is made.
 */
afterEach(() => {
  delete process.env[ENV.outboundAllowedHosts];
});

function reasonOf(url: string): string | undefined {
  const result = checkOutboundUrl(url);
  return result.ok ? undefined : result.reason;
}

describe('checkOutboundUrl', () => {
  it('accepts a public https URL and returns it parsed', () => {
    const result = checkOutboundUrl('https://hooks.example.com/promptops?x=1');
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.url.hostname).toBe('hooks.example.com');
    expect(checkOutboundUrl('https://93.184.216.34:8443/in').ok).toBe(true);
    expect(checkOutboundUrl('https://[2606:2800:220:1:248:1893:25c8:1946]/in').ok).toBe(true);
  });

  it.each([
    ['ftp://example.com/file', 'only http and https'],
    ['file:///etc/passwd', 'only http and https'],
    ['javascript:alert(1)', 'only http and https'],
    ['not a url', 'not valid'],
    ['https://user:pass@example.com/', 'user name or password'],
    ['https://user@example.com/', 'user name or password'],
    [`https://example.com/${'a'.repeat(2048)}`, 'longer than 2048'],
    ['http://example.com/hook', 'must use https'],
  ])('refuses %s', (url, reason) => {
    expect(reasonOf(url)).toContain(reason);
  });

  it.each([
    'https://127.0.0.1/',
    'https://127.1/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://0x7f000001/',
    'https://0177.0.0.1/',
    'https://%31%32%37.0.0.1/',
    'https://[::1]/',
    'https://[0:0:0:0:0:0:0:1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[::127.0.0.1]/',
    'https://[64:ff9b::7f00:1]/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fe80::1]/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://192.168.1.1/',
    'https://100.64.0.1/',
    'https://[fd00::1]/',
    'https://224.0.0.1/',
    'https://[ff02::1]/',
    'https://0.0.0.0/',
    'https://0/',
    'https://[::]/',
    'https://255.255.255.255/',
    'https://240.0.0.1/',
    'https://localhost/',
    'https://LOCALHOST./',
    'https://api.localhost/',
  ])('refuses the address of %s', (url) => {
    expect(reasonOf(url)).toMatch(/^the address of .+ is not allowed/);
  });

  it('names only the host in its reason', () => {
    expect(reasonOf('https://2130706433/')).toBe(
      'the address of 127.0.0.1 is not allowed: loopback, private, link-local and other non-public addresses are not allowed (an operator may allow a host with OUTBOUND_ALLOWED_HOSTS)',
    );
  });

  it('accepts plain http and a refused address only for a host in OUTBOUND_ALLOWED_HOSTS', () => {
    process.env[ENV.outboundAllowedHosts] = ' 127.0.0.1:8787 , localhost,[::1]:9000';
    expect(checkOutboundUrl('http://127.0.0.1:8787/hook').ok).toBe(true);
    expect(checkOutboundUrl('http://localhost:1234/hook').ok).toBe(true);
    expect(checkOutboundUrl('http://[::1]:9000/hook').ok).toBe(true);
    expect(reasonOf('http://127.0.0.1:8788/hook')).toContain('is not allowed');
    expect(reasonOf('http://[::1]:9001/hook')).toContain('is not allowed');
    expect(reasonOf('http://example.com/hook')).toContain('must use https');
    // The allow list names hosts, not addresses: another spelling of an allowed address is the same host.
    expect(checkOutboundUrl('http://2130706433:8787/hook').ok).toBe(true);
    expect(reasonOf('http://user:pw@127.0.0.1:8787/hook')).toContain('user name or password');
  });

  it('matches a default port and ignores entries that are not host or host:port', () => {
    process.env[ENV.outboundAllowedHosts] = '127.0.0.1:80,http://10.0.0.1/,10.0.0.2:99999,10.0.0.3:0';
    expect(checkOutboundUrl('http://127.0.0.1/hook').ok).toBe(true);
    expect(reasonOf('https://10.0.0.1/')).toContain('is not allowed');
    expect(reasonOf('https://10.0.0.2/')).toContain('is not allowed');
    expect(reasonOf('https://10.0.0.3/')).toContain('is not allowed');
  });
});
