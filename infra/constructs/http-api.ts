import { Duration, NestedStack, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  AwsIntegration,
  EndpointType,
  IdentitySource,
  LogGroupLogDestination,
  type Method,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  RequestAuthorizer,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { DASHBOARD_HOME, DASHBOARD_REDIRECT_PATHS, SECURITY_HEADERS } from '#shared/dashboard/site.ts';
import { keyCheckedByHandler } from '#shared/platform/auth-context.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS, BINARY_MEDIA_TYPES, ENV } from '#shared/platform/config.ts';
import { GATEWAY_ERRORS, type GatewayError } from '../gateway-errors.ts';
import { API_STAGE_NAME, type RouteDef } from '../routes.ts';
import { presignedUrlOrigin } from './data-store.ts';
import { pascalCase, routeId } from './naming.ts';
import { ServiceFunction, type ServiceResources } from './service-function.ts';
import { rowEnvironment } from './settings.ts';

/** The header carrying the API key; the authorizer's identity source. */
export const API_KEY_HEADER = 'X-API-KEY';

export interface Throttle {
  /** Steady-state requests per second across the stage. */
  rateLimit: number;
  burstLimit: number;
}
export const DEFAULT_THROTTLE: Throttle = { rateLimit: 100, burstLimit: 200 };

/**
 * API Gateway's own error answers (infra/gateway-errors.ts), rewritten to the service's error body.
 * Gateway response templates only substitute variables (no VTL), so each body is a fixed JSON text;
 * `$context.error.messageString` is API Gateway's message already quoted and escaped as a JSON string,
 * so it goes in without quotes.
 */
/** The response body template of a gateway error. */
export function gatewayErrorTemplate({ message, error }: Pick<GatewayError, 'message' | 'error'>): string {
  const messageJson = typeof message === 'string' ? JSON.stringify(message) : '$context.error.messageString';
  return `{"success":false,"message":${messageJson},"error":${JSON.stringify(error)}}`;
}

/**
 * Access log line: one JSON object per request, and the format itself is that JSON text (every value a
 * quoted variable). No header is logged, so the API key never reaches the logs. API Gateway's error
 * message is left out (it may hold quotes, which would break the line); `errorType` names the error and
 * the stage's execution log (level ERROR) has its message.
 */
export const ACCESS_LOG_FORMAT = `{${[
  ['requestId', '"$context.requestId"'],
  ['extendedRequestId', '"$context.extendedRequestId"'],
  ['requestTime', '"$context.requestTime"'],
  ['ip', '"$context.identity.sourceIp"'],
  ['userAgent', '"$context.identity.userAgent"'],
  ['method', '"$context.httpMethod"'],
  ['resourcePath', '"$context.resourcePath"'],
  ['path', '"$context.path"'],
  ['protocol', '"$context.protocol"'],
  ['status', '"$context.status"'],
  ['responseLength', '"$context.responseLength"'],
  ['responseLatency', '"$context.responseLatency"'],
  ['integrationStatus', '"$context.integration.status"'],
  ['integrationLatency', '"$context.integration.latency"'],
  ['authorizerStatus', '"$context.authorizer.status"'],
  ['authorizerLatency', '"$context.authorizer.latency"'],
  ['wafStatus', '"$context.wafResponseCode"'],
  ['errorType', '"$context.error.responseType"'],
]
  .map(([key, value]) => `"${key}":${value}`)
  .join(',')}}`;

export interface HttpApiProps {
  /** The API's name, one per stage: the 5xx alarm's metric is per API name. */
  name: string;
  root: string;
  /**
   * The route rows by feature (ROUTE_GROUPS): each group's functions, their invoke permissions and
   * error alarms are one nested stack, so the root stack grows by one method per route, not seven.
   */
  routeGroups: Readonly<Record<string, readonly RouteDef[]>>;
  /** The authorizer handler file, relative to `root`. */
  authorizerEntry: string;
  resources: ServiceResources;
  throttle?: Throttle;
  logRetention?: RetentionDays;
  /**
   * Deployment values of settings that rows declare in `environment`; each reaches only the routes
   * that declare it (the stack refuses one that no row declares).
   */
  settings?: Readonly<Record<string, string>>;
}

export interface RouteFunction {
  route: RouteDef;
  function: ServiceFunction;
  /** The feature group (ROUTE_GROUPS key) whose nested stack holds the function. */
  group: string;
}

/** The nested stack of one route group, e.g. `PromptsRoutes`. */
export function routeGroupStackId(group: string): string {
  return `${pascalCase(group)}Routes`;
}

/** The execute-api path of a route in an ARN: API Gateway's `{param}` segments become `*`. */
export function arnPath(path: string): string {
  return path.replace(/\{[^}]*\}/g, '*');
}

/**
 * The REST API: one Lambda per route row behind the key authorizer (except rows whose key is in the
 * body, which their handler checks), API Gateway's error answers in the service's error shape, JSON
 * access logs and X-Ray tracing on the stage.
 */
export class HttpApi extends Construct {
  readonly api: RestApi;
  readonly authorizerFunction: ServiceFunction;
  readonly authorizer: RequestAuthorizer;
  readonly routes: readonly RouteFunction[];
  /** The nested stacks of the route groups, by group name. */
  readonly routeStacks: ReadonlyMap<string, NestedStack>;
  /**
   * The origin of the default endpoint (`https://<api id>.execute-api.<region>.amazonaws.com`), the
   * dashboard's origin when no custom domain fronts the API.
   */
  readonly origin: string;
  readonly accessLogs: LogGroup;
  readonly executionLogs: LogGroup;

  constructor(scope: Construct, id: string, props: HttpApiProps) {
    super(scope, id);
    const throttle = props.throttle ?? DEFAULT_THROTTLE;

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.authorizerFunction = new ServiceFunction(this, 'Authorizer', {
      root: props.root,
      entry: props.authorizerEntry,
      description: 'API key authorizer',
      access: { table: 'read' },
      resources: props.resources,
      invocation: { kind: 'api' },
      logRetention: props.logRetention,
    });
    this.authorizer = new RequestAuthorizer(this, 'KeyAuthorizer', {
      handler: this.authorizerFunction.fn,
      identitySources: [IdentitySource.header(API_KEY_HEADER)],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_SECONDS),
    });

    this.api = new RestApi(this, 'RestApi', {
      restApiName: props.name,
      description: 'promptops HTTP API',
      endpointTypes: [EndpointType.REGIONAL],
      // Multipart uploads reach the function intact (base64, `isBase64Encoded: true`), and a ZIP a
      // function answers (base64) reaches a client that accepts application/zip as bytes.
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      // Access logs need API Gateway's account-level CloudWatch role; it is kept on destroy.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      defaultMethodOptions: { authorizer: this.authorizer, authorizationType: AuthorizationType.CUSTOM },
      deployOptions: {
        stageName: API_STAGE_NAME,
        tracingEnabled: true,
        metricsEnabled: true,
        // Execution logs for failures only, and never request or response bodies (they carry user data).
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
      },
    });

    // From the API's id, not its URL: the URL names the stage, which waits for every route's function.
    const { region, urlSuffix } = Stack.of(this);
    this.origin = `https://${this.api.restApiId}.execute-api.${region}.${urlSuffix}`;
    // The stack outputs the URL once, as ApiUrl; drop RestApi's own duplicate `Endpoint` output.
    this.api.node.tryRemoveChild('Endpoint');
    // API Gateway writes execution logs to this group, creating it with no retention if it is missing:
    // created here first, it gets the stack's retention and goes with the stack.
    this.executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${API_STAGE_NAME}`,
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.acknowledgeNagFindings();

    for (const gatewayError of Object.values(GATEWAY_ERRORS)) {
      this.api.addGatewayResponse(`Gateway${pascalCase(gatewayError.type.toLowerCase())}`, {
        type: ResponseType.of(gatewayError.type),
        statusCode: 'statusCode' in gatewayError ? String(gatewayError.statusCode) : undefined,
        responseHeaders: { 'Content-Type': "'application/json'" },
        templates: { 'application/json': gatewayErrorTemplate(gatewayError) },
      });
    }

    const settings = props.settings ?? {};
    const routeStacks = new Map<string, NestedStack>();
    const routes: RouteFunction[] = [];
    for (const [group, rows] of Object.entries(props.routeGroups)) {
      if (rows.length === 0) continue;
      const stack = new NestedStack(this, routeGroupStackId(group), {
        description: `promptops routes: ${group}`,
      });
      routeStacks.set(group, stack);
      for (const route of rows) {
        routes.push({ route, group, function: this.addRoute(stack, route, settings, props) });
      }
    }
    this.routes = routes;
    this.routeStacks = routeStacks;

    if (routes.some(({ route }) => route.site === 'dashboard')) this.redirectToDashboard();
  }

  /**
   * GET / and GET /ui (API Gateway answers /ui/ there too) redirect to the dashboard, answered by API
   * Gateway (Mock integrations). The Location keeps whatever mounts the API (the stage's `/v1` on the
   * default endpoint, a custom domain's base path): the request's path minus `/ui` and `/`.
   */
  private redirectToDashboard(): void {
    const headers: Record<string, string> = { ...SECURITY_HEADERS, 'Cache-Control': 'no-cache' };
    const template = [
      '#set($path = $context.path)',
      '#if($path.endsWith("/"))#set($path = $path.substring(0, $path.lastIndexOf("/")))#end',
      '#if($path.endsWith("/ui"))#set($path = $path.substring(0, $path.lastIndexOf("/")))#end',
      `#set($context.responseOverride.header.Location = "$path${DASHBOARD_HOME}")`,
      ...Object.entries(headers).map(
        ([name, value]) => `#set($context.responseOverride.header.${name} = "${value}")`,
      ),
    ].join('\n');
    const declared = ['Location', ...Object.keys(headers)];
    for (const path of DASHBOARD_REDIRECT_PATHS) {
      const method = this.api.root.resourceForPath(path).addMethod(
        'GET',
        new MockIntegration({
          passthroughBehavior: PassthroughBehavior.NEVER,
          requestTemplates: { 'application/json': '{"statusCode": 302}' },
          integrationResponses: [{ statusCode: '302', responseTemplates: { 'application/json': template } }],
        }),
        {
          authorizationType: AuthorizationType.NONE,
          methodResponses: [
            {
              statusCode: '302',
              responseParameters: Object.fromEntries(
                declared.map((name) => [`method.response.header.${name}`, true]),
              ),
            },
          ],
        },
      );
      acknowledgeOpenMethod(
        method,
        'A redirect to the web dashboard, answered by API Gateway: no function or data behind it',
      );
    }
  }

  /**
   * One route: its function and the permission for API Gateway to invoke it (this method and path on
   * stage v1 only; none for the console's test button) in the group's nested stack, its method in the
   * API (root stack). The permission names the stage literally: a reference to the Stage resource would
   * make the nested stack wait for the stage, which waits for the methods, which wait for the stack.
   */
  private addRoute(
    stack: NestedStack,
    route: RouteDef,
    settings: Readonly<Record<string, string>>,
    props: HttpApiProps,
  ): ServiceFunction {
    let environment = rowEnvironment(route, settings);
    // The dashboard's CSP lets its page PUT files to the bucket's presigned URLs (the Datasets upload).
    if (route.site === 'dashboard') {
      environment = { ...environment, [ENV.uploadOrigin]: presignedUrlOrigin(props.resources.bucket) };
    }
    const fn = new ServiceFunction(stack, routeId(route.method, route.path), {
      root: props.root,
      entry: route.handler,
      description: `${route.method} ${route.path}`,
      access: route,
      resources: props.resources,
      invocation: { kind: 'api' },
      memoryMb: route.memoryMb,
      timeoutSeconds: route.timeoutSeconds,
      logRetention: props.logRetention,
      environment,
    });
    fn.fn.addPermission('ApiPermission', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: this.api.arnForExecuteApi(route.method, arnPath(route.path), API_STAGE_NAME),
    });
    // What LambdaIntegration builds, without the permission it would add in the method's (root) stack.
    const integration = new AwsIntegration({
      proxy: true,
      service: 'lambda',
      path: `2015-03-31/functions/${fn.fn.functionArn}/invocations`,
    });
    // A body-key route has no gateway authorizer: its handler checks the key (shared/auth/key-cache.ts).
    // Nor have public files (the dashboard's, the OpenAPI document: no data in them).
    const open = keyCheckedByHandler(route.auth) || route.site !== undefined;
    const method = this.api.root
      .resourceForPath(route.path)
      .addMethod(route.method, integration, open ? { authorizationType: AuthorizationType.NONE } : undefined);
    if (route.site === 'openapi') {
      acknowledgeOpenMethod(
        method,
        'The OpenAPI document is public on purpose (any Swagger UI may load it): its function serves a file of its asset, with no grant',
      );
    } else if (route.site === 'dashboard') {
      acknowledgeOpenMethod(
        method,
        "The web dashboard's static files (HTML, scripts, styles) hold no data: the dashboard calls the API with the key its user signs in with",
      );
    } else if (keyCheckedByHandler(route.auth)) {
      acknowledgeOpenMethod(
        method,
        route.auth === 'basic'
          ? "The API key is the password of Authorization: Basic (Langfuse's OTLP exporter), which the key authorizer does not read: the handler checks it with the authorizer's own lookup and cache"
          : "The API key is in the JSON body (PromptLayer SDK tracking calls), which a gateway authorizer cannot read: the handler checks it with the authorizer's own lookup and cache",
      );
    }
    return fn;
  }

  /** Findings of the API as a whole, acknowledged here with the design choice behind each. */
  private acknowledgeNagFindings(): void {
    const acknowledge = (id: string, reason: string) => Validations.of(this.api).acknowledge({ id, reason });
    acknowledge(
      'AwsSolutions-APIG2',
      "Requests are validated in each handler with the zod schemas of its route (the same code runs locally), which answer 4xx in the service's error body; API Gateway models would duplicate them",
    );
    acknowledge(
      'AwsSolutions-COG4',
      'Clients are authenticated by API key (the PromptLayer protocol), checked by the REQUEST key authorizer or, for body-key routes, by the handler; there are no Cognito users',
    );
    Validations.of(this.api.node.findChild('CloudWatchRole')).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "API Gateway's account-level logging role uses the managed policy AWS documents for it (log groups and streams on any resource); only API Gateway can assume the role",
    });
  }
}

/** A method without the key authorizer, on purpose: the reason says who checks access instead. */
function acknowledgeOpenMethod(method: Method, reason: string): void {
  Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason });
}
