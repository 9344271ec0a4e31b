import { existsSync, readFileSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  describePermissions,
  ENTITY_TYPES,
  isValidEmail,
  MAX_EMAIL_LENGTH,
  parsePermissions,
  READ_ONLY,
} from '#shared/platform/auth-context.ts';
import { ENV } from '#shared/platform/config.ts';
import { ENDPOINTS_FILE, LOCAL_TABLE_NAME } from '../local/names.ts';

/**
 * `npm run keys -- <create|list|revoke> --workspace NAME`: API keys for a deployed stack (the table from
 * the stack's TableName output with --stack, or --table / TABLE_NAME; AWS credentials from the
 * environment) or for the running local service (its table and endpoint are found in the data directory,
 * or given with DYNAMODB_ENDPOINT and TABLE_NAME).
 * `create` prints the new key alone on the last line of stdout; it is stored only as a hash.
 */
const USAGE = `Usage:
  npm run keys -- create --workspace NAME [--read-only | --permissions TYPE:ACCESS,...]
                         [--email ADDRESS | --user-id ID] [TABLE]
  npm run keys -- list   --workspace NAME [TABLE]
  npm run keys -- revoke --workspace NAME --key-id ID [TABLE]
Permissions: full access unless --read-only (read every entity type) or --permissions, e.g.
  --permissions prompts:read,request_logs:edit (types not named get no access); types: ENTITY_TYPES.
Users: each key is for a new user, with the e-mail address --email (what created_by_email filters
  on; at most MAX_EMAIL_LENGTH characters) or none; --user-id ID (from list) makes another key of that
  user, carrying the user's address (--email may repeat it, nothing else).
TABLE: --stack STACK (its TableName output, e.g. promptops-prod), else --table TABLE, else TABLE_NAME,
else the running local service, found through its data directory: --data-dir DIR, else
PROMPTOPS_DATA_DIR, else .data (give the one the service was started with).`;

// Each command answers in well under 2 s: `npm run keys` runs this file with Node's own type stripping
// (no tsx: its CLI starts a second process and its loader sees every file), and the AWS SDK, most of
// what loads, is compiled once into Node's compile cache (in the temporary directory) and reused.
enableCompileCache();

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    workspace: { type: 'string' },
    'key-id': { type: 'string' },
    email: { type: 'string' },
    'user-id': { type: 'string' },
    'read-only': { type: 'boolean', default: false },
    permissions: { type: 'string' },
    'data-dir': { type: 'string' },
    table: { type: 'string' },
    stack: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const usage = () =>
  USAGE.replace('ENTITY_TYPES', ENTITY_TYPES.join(', ')).replace(
    'MAX_EMAIL_LENGTH',
    String(MAX_EMAIL_LENGTH),
  );

function fail(message: string): never {
  console.error(`${message}\n\n${usage()}`);
  process.exit(2);
}

const command = positionals[0];
if (values.help) {
  console.log(usage());
  process.exit(0);
}
if (!command) fail('A command is required.');
if (!values.workspace) fail('--workspace is required.');
// A workspace name is a key: a lone UTF-16 surrogate would be stored as U+FFFD and meet another name.
if (!values.workspace.isWellFormed()) fail('--workspace must be well-formed Unicode (no lone surrogates).');
if (values['read-only'] && values.permissions) fail('Give --read-only or --permissions, not both.');
if (values.email !== undefined && !isValidEmail(values.email)) {
  fail(
    `--email: "${values.email}" is not an e-mail address (at most ${MAX_EMAIL_LENGTH} characters: ` +
      "letters, digits or .!#$%&'*+/=?^_`{|}~- before one @, then a domain such as example.com).",
  );
}
const userId = values['user-id'] === undefined ? undefined : Number(values['user-id']);
if (userId !== undefined && (!Number.isSafeInteger(userId) || userId < 1))
  fail('--user-id must be a user id from `list`.');
const permissions = values['read-only']
  ? READ_ONLY
  : values.permissions
    ? permissionsOf(values.permissions)
    : undefined;

function permissionsOf(text: string) {
  try {
    return parsePermissions(text);
  } catch (error) {
    fail(`--permissions: ${(error as Error).message}.`);
  }
}

configureTable(values.stack ? await stackTableName(values.stack) : values.table, values['data-dir']);
const {
  createApiKey,
  createUserKey,
  ensureWorkspace,
  findWorkspace,
  KeyUserError,
  listApiKeys,
  revokeApiKey,
} = await import('#shared/auth/api-keys.ts');

/** Another key of a user of the workspace; a user unknown there, or another address, is refused. */
async function userKey(workspaceId: number, id: number) {
  try {
    return await createUserKey(workspaceId, id, { permissions, email: values.email });
  } catch (error) {
    if (error instanceof KeyUserError) fail(`${error.message}.`);
    throw error;
  }
}

/** `user 7 <a@example.com>`, or `user 7 (no e-mail)`. */
function describeUser(key: { userId: number; email: string | null }): string {
  return `user ${key.userId} ${key.email === null ? '(no e-mail)' : `<${key.email}>`}`;
}

/** list and revoke never create a workspace: a typo must not leave one behind. */
async function existingWorkspace(name: string): Promise<number> {
  const workspaceId = await findWorkspace(name);
  if (workspaceId === undefined) fail(`No workspace "${name}".`);
  return workspaceId;
}
try {
  switch (command) {
    case 'create': {
      // A key of an existing user needs the workspace to exist already (it holds the user's keys).
      const { workspaceId, created } =
        userId === undefined
          ? await ensureWorkspace(values.workspace)
          : { workspaceId: await existingWorkspace(values.workspace), created: false };
      const { key, summary } =
        userId === undefined
          ? await createApiKey(workspaceId, { permissions, email: values.email })
          : await userKey(workspaceId, userId);
      console.log(
        `${created ? 'Created' : 'Using'} workspace "${values.workspace}" (id ${workspaceId}); key id ${summary.keyId} ` +
          `for ${describeUser(summary)}, ${describePermissions(summary.permissions)}. The key is shown once:`,
      );
      console.log(key);
      break;
    }
    case 'list': {
      const workspaceId = await existingWorkspace(values.workspace);
      const keys = await listApiKeys(workspaceId);
      for (const key of keys) {
        console.log(
          `${key.keyId}\t${key.prefix}…\t${describePermissions(key.permissions)}\t${describeUser(key)}` +
            `\tcreated ${key.createdAt}` +
            `${key.revokedAt ? `\trevoked ${key.revokedAt}` : ''}`,
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
} catch (error) {
  // A data directory whose service was killed keeps its endpoints file: say so rather than a stack trace.
  const endpoint = process.env[ENV.dynamodbEndpoint];
  if (
    endpoint &&
    /ECONNREFUSED|fetch failed|socket hang up/.test(
      String((error as Error).message ?? error) + String((error as { code?: string }).code),
    )
  ) {
    fail(
      `The DynamoDB endpoint ${endpoint} does not answer: is the local service still running? (its data directory may be left from a service that was killed; start it again with npm start)`,
    );
  }
  throw error;
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
function configureTable(flag: string | undefined, dataDirFlag: string | undefined): void {
  if (flag) process.env[ENV.tableName] = flag;
  if (!process.env[ENV.tableName] && !process.env[ENV.dynamodbEndpoint]) {
    const dataDir = dataDirFlag || process.env.PROMPTOPS_DATA_DIR || '.data';
    const from = dataDirFlag
      ? '--data-dir'
      : process.env.PROMPTOPS_DATA_DIR
        ? 'PROMPTOPS_DATA_DIR'
        : 'the default';
    const file = join(dataDir, ENDPOINTS_FILE);
    if (!existsSync(file)) {
      fail(
        `No running local service found in data directory ${resolve(dataDir)} (${from}): it has no ${ENDPOINTS_FILE}, ` +
          'which the service writes there while it runs.\n' +
          'A service started with another PROMPTOPS_DATA_DIR is found only with that same directory: pass ' +
          '--data-dir DIR or set PROMPTOPS_DATA_DIR=DIR. Otherwise start the service (npm start), or name a table: ' +
          '--stack, --table or TABLE_NAME (with DYNAMODB_ENDPOINT for an emulator).',
      );
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
