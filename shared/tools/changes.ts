/**
 * Who is told that a tool of a workspace has a new version in this container: the caches of what
 * expanded it (the prompt read cache registers itself when it is loaded). Tools know nothing of their
 * readers, so prompts may import tools and never the other way round.
 */
type ToolChangeListener = (workspaceId: number, name: string) => void;

const listeners = new Set<ToolChangeListener>();

export function onToolChange(listener: ToolChangeListener): void {
  listeners.add(listener);
}

export function toolChanged(workspaceId: number, name: string): void {
  for (const listener of listeners) listener(workspaceId, name);
}
