import { ACCOUNT, AwsError } from './aws-protocol.ts';

/** Secrets GetSecretValue answers, by name: a value, or a function read at each call (a file). */
export type LocalSecrets = Readonly<Record<string, string | (() => string)>>;

const SECRET_VERSION = '00000000-0000-4000-8000-000000000000';

/** Secrets Manager's GetSecretValue for the local runtime (served by messaging.ts). */
export class SecretsStore {
  private readonly secrets: LocalSecrets;

  constructor(secrets: LocalSecrets = {}) {
    this.secrets = secrets;
  }

  getSecretValue(secretId: unknown) {
    const id = String(secretId ?? '');
    // By name or by the ARN this answers (`...:secret:<name>-<suffix>`).
    const name = Object.keys(this.secrets).find(
      (candidate) => id === candidate || id === secretArn(candidate),
    );
    if (name === undefined) {
      throw new AwsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    }
    const value = this.secrets[name];
    return {
      ARN: secretArn(name),
      Name: name,
      SecretString: typeof value === 'function' ? value() : value,
      VersionId: SECRET_VERSION,
      VersionStages: ['AWSCURRENT'],
      CreatedDate: 0,
    };
  }
}

function secretArn(name: string): string {
  return `arn:aws:secretsmanager:${process.env.AWS_REGION ?? 'us-east-1'}:${ACCOUNT}:secret:${name}-local`;
}
