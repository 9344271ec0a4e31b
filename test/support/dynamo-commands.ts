import { inChangeConsumer } from '#infra/local/change-feed.ts';

/** A DynamoDB command a test saw the domain code send: its name (`QueryCommand`) and input. */
export interface SentCommand {
  name: string;
  input: Record<string, unknown>;
}

/**
 * Records every command the shared document client sends from now on (the change consumers' aside:
 * they run after the request, in another Lambda in AWS), in order, into the returned
 * array (empty it with `sent.length = 0`). Call it after the test service started: the client is built
 * from the environment the service sets.
 */
export async function recordDynamoCommands(): Promise<SentCommand[]> {
  const sent: SentCommand[] = [];
  const { documentClient } = await import('#shared/platform/dynamo.ts');
  documentClient().middlewareStack.add(
    (next, context) => (args) => {
      if (inChangeConsumer()) return next(args);
      sent.push({
        name: String(context.commandName ?? 'unknown'),
        input: args.input as Record<string, unknown>,
      });
      return next(args);
    },
    { step: 'initialize', name: `testCommandRecorder${Math.random()}` },
  );
  return sent;
}
