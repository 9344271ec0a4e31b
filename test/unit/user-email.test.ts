import { describe, expect, it } from 'vitest';
import { isValidEmail, MAX_EMAIL_LENGTH, sameEmail } from '#shared/platform/auth-context.ts';

/** A user's e-mail address: the HTML form rule, at most 320 characters, compared ignoring case. */
describe('user e-mail addresses', () => {
  it.each([
    'ada@example.com',
    'Ada.Lovelace+notes@mail.example.co.uk',
    "o'brien@example.com",
    'ops@localhost',
    `${'a'.repeat(MAX_EMAIL_LENGTH - 'example.com'.length - 1)}@example.com`,
  ])('accepts %s', (address) => {
    expect(isValidEmail(address)).toBe(true);
  });

  it.each([
    '',
    'ada',
    'ada@',
    '@example.com',
    'a b@example.com',
    'ada@@example.com',
    'ada@example..com',
    'ada@-example.com',
    'ada@exa_mple.com',
    'adà@example.com',
    'ada@example.com\n',
    `${'a'.repeat(MAX_EMAIL_LENGTH - 'example.com'.length)}@example.com`,
  ])('refuses %j', (address) => {
    expect(isValidEmail(address)).toBe(false);
  });

  it('compares whole addresses ignoring case', () => {
    expect(sameEmail('Ada@Example.COM', 'ada@example.com')).toBe(true);
    expect(sameEmail('ada@example.com', 'ada@example.co')).toBe(false);
    expect(sameEmail('ada@example.com', 'da@example.com')).toBe(false);
  });
});
