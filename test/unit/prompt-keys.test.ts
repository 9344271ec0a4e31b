import { describe, expect, it } from 'vitest';
import { HEAD_SK, headKey, templatePk, VERSION_PREFIX, versionKey, versionSk } from '#shared/prompts/keys.ts';

describe('prompt registry keys', () => {
  it('orders version sort keys as numbers, and the head above every version', () => {
    const keys = [1, 2, 9, 10, 99, 100, 1_000_000, 9_999_999_999].map(versionSk);
    expect([...keys].sort()).toEqual(keys);
    expect(keys.every((key) => key.startsWith(VERSION_PREFIX) && HEAD_SK > key)).toBe(true);
  });

  it('puts a template head and its versions in one partition of the workspace', () => {
    expect(headKey(7, 'greet')).toEqual({ PK: 'W#7#P#greet', SK: HEAD_SK });
    expect(versionKey(7, 'greet', 3)).toEqual({ PK: 'W#7#P#greet', SK: 'V#0000000003' });
    expect(templatePk(8, 'greet')).not.toBe(templatePk(7, 'greet'));
  });

  it('keys a name too long for a DynamoDB key by its hash, keeping names apart', () => {
    const long = '🙂'.repeat(512); // 2048 bytes: over the key limit with the prefix
    const pk = templatePk(1, long);
    expect(Buffer.byteLength(pk)).toBeLessThan(2048);
    expect(pk).toMatch(/^W#1#P#sha256:[0-9a-f]{64}$/);
    expect(templatePk(1, `${long}!`)).not.toBe(pk);
    expect(templatePk(1, 'short name')).toBe('W#1#P#short name');
  });
});
