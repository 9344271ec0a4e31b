import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';

/**
 * CloudFormation refuses a stack (root or nested) over 500 resources. The CDK tests and the bench hold
 * each stack to this budget, so the next feature's routes cannot silently push one over the limit. The
 * workers, schedules and change consumers live in the `Workers` nested stack, so the root grows only by
 * the API's paths and methods and four per job queue (docs/deployment.md#stack-size-and-nested-stacks).
 */
export const STACK_RESOURCE_BUDGET = 450;

/** Every stack deployed with `stack`: itself first, then its nested stacks. */
export function stacksOf(stack: Stack): Stack[] {
  return [
    stack,
    ...stack.node.findAll().filter((child): child is NestedStack => NestedStack.isNestedStack(child)),
  ];
}

export interface StackSize {
  /** Construct path, e.g. `promptops-dev/Http/PromptsRoutes`. */
  stack: string;
  resources: number;
}

/** The number of resources of the stack and of each of its nested stacks (synthesizes the app). */
export function stackSizes(stack: Stack): StackSize[] {
  return stacksOf(stack).map((each) => ({
    stack: each.node.path,
    resources: Object.keys(Template.fromStack(each).toJSON().Resources ?? {}).length,
  }));
}
