import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, queueUrlEnv } from '#shared/platform/config.ts';

/**
 * Fixture of the local runtime's tests: one AWS call of each kind a row can grant, made with the real
 * SDK clients against the endpoints the local service sets, so a test can see which calls a row's
 * grants let through.
 */
export type AwsCall =
  | 'get-item'
  | 'put-item'
  | 'get-object'
  | 'put-object'
  | 'put-events'
  | 'get-secret'
  | `send:${string}`;

export interface CallOutcome {
  ok: boolean;
  name?: string;
  message?: string;
}

const env = (name: string) => process.env[name] as string;

export async function awsCall(call: AwsCall): Promise<CallOutcome> {
  try {
    await perform(call);
    return { ok: true };
  } catch (error) {
    return { ok: false, name: (error as Error).name, message: (error as Error).message };
  }
}

async function perform(call: AwsCall): Promise<void> {
  const key = { PK: { S: 'fixture#grants' }, SK: { S: 'item' } };
  if (call === 'get-item' || call === 'put-item') {
    const dynamo = new DynamoDBClient({ endpoint: env(ENV.dynamodbEndpoint) });
    if (call === 'get-item')
      await dynamo.send(new GetItemCommand({ TableName: env(ENV.tableName), Key: key }));
    else await dynamo.send(new PutItemCommand({ TableName: env(ENV.tableName), Item: key }));
    return;
  }
  if (call === 'get-object' || call === 'put-object') {
    const s3 = new S3Client({ endpoint: env(ENV.s3Endpoint), forcePathStyle: true });
    const object = { Bucket: env(ENV.bucketName), Key: 'fixture/grants.txt' };
    if (call === 'put-object') await s3.send(new PutObjectCommand({ ...object, Body: 'granted' }));
    else
      await s3.send(new GetObjectCommand(object)).catch((error: Error) => {
        if (error.name !== 'NoSuchKey') throw error;
      });
    return;
  }
  if (call === 'put-events') {
    const events = new EventBridgeClient({ endpoint: env(ENV.eventsEndpoint) });
    await events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: env(ENV.eventBusName),
            Source: 'fixture',
            DetailType: 'fixture',
            Detail: '{}',
          },
        ],
      }),
    );
    return;
  }
  if (call === 'get-secret') {
    const secrets = new SecretsManagerClient({ endpoint: env(ENV.secretsEndpoint) });
    await secrets.send(new GetSecretValueCommand({ SecretId: env(ENV.masterKeySecretId) }));
    return;
  }
  const queue = call.slice('send:'.length);
  const sqs = new SQSClient({ endpoint: env(ENV.sqsEndpoint) });
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: env(queueUrlEnv(queue)),
      MessageBody: JSON.stringify({ call: 'none' }),
    }),
  );
}
