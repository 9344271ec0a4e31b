import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { deriveKey, resetMasterKey, seal, unseal } from '#shared/platform/master-key.ts';
import type { WebhookRecord } from '#shared/webhooks/repository.ts';
import { signingKey, signingKeys } from '#shared/webhooks/secrets.ts';
import { deliveryHeaders, promptLayerSignature, pythonJson, secretText } from '#shared/webhooks/signing.ts';

/**
 * Signing as receivers check it: Standard Webhooks signatures verified by the `standardwebhooks`
 * package (one secret, both during a rotation, each alone), PromptLayer's hex signature over the body
 * Python's json.dumps(sort_keys=True) writes, and secrets derived from the master key.
 */
const secrets = mockClient(SecretsManagerClient);
afterAll(() => secrets.restore());
beforeEach(() => {
  secrets.reset();
  secrets.on(GetSecretValueCommand).resolves({ SecretString: 'the master secret' });
  resetMasterKey();
  process.env.MASTER_KEY_SECRET_ID = 'promptops-master-key';
  delete process.env.WEBHOOK_SECRET_OVERLAP_SECONDS;
});

const envelope = {
  event_type: 'prompt_template_version_created',
  details: { prompt_name: 'héllo "world"\n', prompt_id: 1, version_number: 2, prompt_version_id: 3 },
  workspace_id: 5,
  user_id: null,
  user_name: null,
  user_email: 'a@b.c',
  timestamp: '2024-01-15T10:30:00.000Z',
};

describe('pythonJson', () => {
  it('writes what json.dumps(payload, sort_keys=True) writes', () => {
    expect(pythonJson(envelope)).toBe(
      '{"details": {"prompt_id": 1, "prompt_name": "h\\u00e9llo \\"world\\"\\n", "prompt_version_id": 3, "version_number": 2}, ' +
        '"event_type": "prompt_template_version_created", "timestamp": "2024-01-15T10:30:00.000Z", "user_email": "a@b.c", ' +
        '"user_id": null, "user_name": null, "workspace_id": 5}',
    );
    expect(pythonJson({ b: [1, 2.5, true, false], a: {}, c: [], '😀': '\u007f' })).toBe(
      '{"a": {}, "b": [1, 2.5, true, false], "c": [], "\\ud83d\\ude00": "\\u007f"}',
    );
  });

  it('round-trips through JSON.parse', () => {
    expect(JSON.parse(pythonJson(envelope))).toEqual(envelope);
  });
});

describe('signatures', () => {
  const body = pythonJson(envelope);
  const timestamp = Math.floor(Date.now() / 1000);

  it('verify with standardwebhooks for the secret shown to the user', async () => {
    const key = await signingKey(5, 9, 1);
    const headers = deliveryHeaders({ deliveryId: 'msg_1', timestampSeconds: timestamp, body, keys: [key] });
    expect(new Webhook(secretText(key)).verify(body, headers)).toEqual(envelope);
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['x-promptlayer-signature']).toMatch(/^[0-9a-f]{64}$/);
    const other = await signingKey(5, 9, 2);
    expect(() => new Webhook(secretText(other)).verify(body, headers)).toThrow();
  });

  it('during a rotation both secrets verify, each alone', async () => {
    const current = await signingKey(5, 9, 2);
    const previous = await signingKey(5, 9, 1);
    const headers = deliveryHeaders({
      deliveryId: 'msg_2',
      timestampSeconds: timestamp,
      body,
      keys: [current, previous],
    });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(secretText(current)).verify(body, headers)).toEqual(envelope);
    expect(new Webhook(secretText(previous)).verify(body, headers)).toEqual(envelope);
  });

  it('X-PromptLayer-Signature is the hex HMAC of the body keyed with the secret text', async () => {
    const { createHmac } = await import('node:crypto');
    const key = await signingKey(5, 9, 1);
    const text = secretText(key);
    // A PromptLayer-style verifier: re-serialise the parsed payload as Python does, HMAC with the secret.
    const expected = createHmac('sha256', text)
      .update(pythonJson(JSON.parse(body)))
      .digest('hex');
    expect(promptLayerSignature(key, body)).toBe(expected);
  });

  it('custom headers go out but never replace ours', () => {
    const headers = deliveryHeaders({
      deliveryId: 'msg_3',
      timestampSeconds: timestamp,
      body,
      keys: [Buffer.alloc(32, 1)],
      userHeaders: { Authorization: 'Bearer x', 'Webhook-Id': 'forged', 'USER-AGENT': 'forged' },
    });
    expect(headers.Authorization).toBe('Bearer x');
    expect(headers['webhook-id']).toBe('msg_3');
    expect(headers['user-agent']).toBe('promptops-webhooks/1');
    expect(Object.keys(headers).filter((name) => /webhook-id|user-agent/i.test(name))).toHaveLength(2);
  });
});

describe('secrets', () => {
  const webhook: WebhookRecord = {
    id: 9,
    workspaceId: 5,
    url: 'https://example.com/hook',
    eventTypes: [],
    description: null,
    isActive: true,
    headersSealed: null,
    headerNames: [],
    disabledReason: null,
    secretVersion: 2,
    previousSecretVersion: 1,
    rotatedAt: Date.parse('2024-01-01T00:00:00Z'),
    createdAt: 0,
    updatedAt: 0,
  };

  it('are derived per workspace, webhook and version, and read the master key once', async () => {
    const keys = await Promise.all([signingKey(5, 9, 1), signingKey(5, 9, 2), signingKey(6, 9, 1)]);
    expect(new Set(keys.map((key) => key.toString('hex'))).size).toBe(3);
    expect((await signingKey(5, 9, 1)).equals(keys[0]!)).toBe(true);
    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
    expect(secrets).toHaveReceivedCommandWith(GetSecretValueCommand, { SecretId: 'promptops-master-key' });
    expect(secretText(keys[0]!)).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('the previous secret signs for 24 h after a rotation, then no more', async () => {
    const rotatedAt = webhook.rotatedAt!;
    expect(await signingKeys(webhook, rotatedAt + 23 * 3600_000)).toHaveLength(2);
    expect(await signingKeys(webhook, rotatedAt + 24 * 3600_000)).toHaveLength(1);
    process.env.WEBHOOK_SECRET_OVERLAP_SECONDS = '0';
    expect(await signingKeys(webhook, rotatedAt + 1)).toHaveLength(1);
  });

  it('seal and unseal per purpose', async () => {
    const sealed = await seal('a', 'Bearer secret');
    expect(sealed).not.toContain('secret');
    expect(await unseal('a', sealed)).toBe('Bearer secret');
    await expect(unseal('b', sealed)).rejects.toThrow();
    expect((await deriveKey('a')).length).toBe(32);
  });
});
