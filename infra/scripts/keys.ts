import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ENV } from '#shared/platform/config.ts';
import { ENDPOINTS_FILE, LOCAL_TABLE_NAME } from '../local/service.ts';

/**
 * `npm run keys -- <create|list|revoke> --workspace NAME`: API keys for a deployed stack (the table from
 * the stack's TableName output with --stack, or --table / TABLE_NAME; AWS credentials from the
 * environment) or for the running local service (its table and endpoint are found in the data directory,
 * or given with DYNAMODB_ENDPOINT and TABLE_NAME).
 * `create` prints the new key alone on the last line of stdout; it is stored only as a hash.
 */
const USAGE = `Usage:
  npm run keys -- create --workspace NAME [--read-only] [--stack STACK | --table TABLE]
  npm run keys -- list   --workspace NAME [--stack STACK | --table TABLE]
  npm run keys -- revoke --workspace NAME --key-id ID [--stack STACK | --table TABLE]
Table: --stack (its TableName output, e.g. promptops-prod), else --table, else TABLE_NAME, else the
running local service (PROMPTOPS_DATA_DIR, default .data).`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    workspace: { type: 'string' },
    'key-id': { type: 'string' },
    'read-only': { type: 'boolean', default: false },
    table: { type: 'string' },
    stack: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

const command = positionals[0];
if (values.help || !command) fail('A command is required.');
if (!values.workspace) fail('--workspace is required.');

configureTable(values.stack ? await stackTableName(values.stack) : values.table);
const { createApiKey, ensureWorkspace, findWorkspace, listApiKeys, revokeApiKey } = await import(
  '#shared/auth/api-keys.ts'
);

/** list and revoke never create a workspace: a typo must not leave one behind. */
async function existingWorkspace(name: string): Promise<number> {
  const workspaceId = await findWorkspace(name);
  if (workspaceId === undefined) fail(`No workspace "${name}".`);
  return workspaceId;
}
const { ENTITY_TYPES } = await import('#shared/platform/auth-context.ts');

switch (command) {
  case 'create': {
    const { workspaceId, created } = await ensureWorkspace(values.workspace);
    const permissions = values['read-only']
      ? Object.fromEntries(ENTITY_TYPES.map((type) => [type, 'read' as const]))
      : undefined;
    const { key, summary } = await createApiKey(workspaceId, { permissions });
    console.log(
      `${created ? 'Created' : 'Using'} workspace "${values.workspace}" (id ${workspaceId}); key id ${summary.keyId}, ` +
        `${values['read-only'] ? 'read-only' : 'full access'}. The key is shown once:`,
    );
    console.log(key);
    break;
  }
  case 'list': {
    const workspaceId = await existingWorkspace(values.workspace);
    const keys = await listApiKeys(workspaceId);
    for (const key of keys) {
      console.log(
        `${key.keyId}\t${key.prefix}…\tcreated ${key.createdAt}${key.revokedAt ? `\trevoked ${key.revokedAt}` : ''}`,
      );
    }
    if (keys.length === 0) console.log(`No keys in workspace "${values.workspace}".`);
    break;
  }
  case 'revoke': {
    const keyId = Number(values['key-id']);
    if (!Number.isSafeInteger(keyId) || keyId < 1) fail('--key-id must be a key id from `list`.');
    const workspaceId = await existingWorkspace(values.workspace);
    if (!(await revokeApiKey(workspaceId, keyId)))
      fail(`No key ${keyId} in workspace "${values.workspace}".`);
    console.log(
      `Revoked key ${keyId}. API Gateway may honour a cached decision for up to its authorizer cache TTL.`,
    );
    break;
  }
  default:
    fail(`Unknown command "${command}".`);
}

/** The TableName output of a deployed promptops stack. */
async function stackTableName(stackName: string): Promise<string> {
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const { Stacks } = await new CloudFormationClient({}).send(
    new DescribeStacksCommand({ StackName: stackName }),
  );
  const output = Stacks?.[0]?.Outputs?.find((candidate) => candidate.OutputKey === 'TableName')?.OutputValue;
  if (!output) fail(`Stack ${stackName} has no TableName output.`);
  return output;
}

/** Points the data layer at the table: a flag, the environment, or the running local service. */
function configureTable(flag: string | undefined): void {
  if (flag) process.env[ENV.tableName] = flag;
  if (!process.env[ENV.tableName] && !process.env[ENV.dynamodbEndpoint]) {
    const file = join(process.env.PROMPTOPS_DATA_DIR || '.data', ENDPOINTS_FILE);
    if (!existsSync(file)) {
      fail('No table: pass --stack or --table, set TABLE_NAME, or start the local service (npm start).');
    }
    const local = JSON.parse(readFileSync(file, 'utf8')) as { dynamodbEndpoint: string; tableName: string };
    process.env[ENV.tableName] = local.tableName;
    process.env[ENV.dynamodbEndpoint] = local.dynamodbEndpoint;
  }
  if (process.env[ENV.dynamodbEndpoint]) {
    // An emulator: any region and credentials will do, but the SDK insists on having some.
    process.env[ENV.tableName] ||= LOCAL_TABLE_NAME;
    process.env.AWS_REGION ||= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ||= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ||= 'local';
  }
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ||= 'true';
}
