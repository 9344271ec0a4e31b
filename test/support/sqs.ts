import type { SQSEvent, SQSRecord } from 'aws-lambda';

/** One record of an SQS event as Lambda delivers it; `body` is JSON-encoded. */
export interface TestMessage {
  id: string;
  body: unknown;
  /** ApproximateReceiveCount: 1 for a first delivery. */
  receiveCount?: number;
}

/** An SQS event of the given messages, in order, for calling a worker's handler directly. */
export function sqsEvent(...messages: TestMessage[]): SQSEvent {
  return {
    Records: messages.map(
      ({ id, body, receiveCount = 1 }): SQSRecord => ({
        messageId: id,
        receiptHandle: id,
        body: JSON.stringify(body),
        attributes: {
          ApproximateReceiveCount: String(receiveCount),
          SentTimestamp: '0',
          SenderId: 'test',
          ApproximateFirstReceiveTimestamp: '0',
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:test-queue',
        awsRegion: 'us-east-1',
      }),
    ),
  };
}
