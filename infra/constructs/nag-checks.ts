import { AwsSolutionsChecks, type NagPack, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * The cdk-nag rule packs the stack must pass with no unacknowledged finding: AWS Solutions and
 * Serverless. `npm run synth` runs them as validation plugins (`Validations.of(app).addPlugins`), so a
 * finding fails the synth; the CDK tests run them on the synthesized stacks. A finding that is a design
 * choice is acknowledged, with its reason, in the construct that causes it:
 * `Validations.of(construct).acknowledge({ id, reason })` (docs/deployment.md, "cdk-nag").
 */
export function nagChecks(scope?: IConstruct): NagPack[] {
  return [new AwsSolutionsChecks(scope), new ServerlessChecks(scope)];
}
