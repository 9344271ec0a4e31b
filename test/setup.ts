// Registered once for every test file: the aws-sdk-client-mock matchers (toHaveReceivedCommandWith, ...).
import 'aws-sdk-client-mock-vitest/extend';

// Keep rejected-request warnings out of the test output.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
