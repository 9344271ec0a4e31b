// Registered once for every test file: the aws-sdk-client-mock matchers (toHaveReceivedCommandWith, ...).
import 'aws-sdk-client-mock-vitest/extend';
