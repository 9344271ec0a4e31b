// Registered once for every test file: the aws-sdk-client-mock matchers (toHaveReceivedCommandWith, ...).
import 'aws-sdk-client-mock-vitest/extend';

// Quiet the AWS SDK's Node 20 notice and keep rejected-request warnings out of the test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
