// Business-keyed workflow IDs, one builder per process, so callbacks route to workflows without a lookup table.
export const PROCESS_KINDS = ['subproject'] as const;
export type ProcessKind = (typeof PROCESS_KINDS)[number];

export const workflowIds = {
  subproject: (parentProjectId: string, displayName: string) => `subproject:${parentProjectId}:${displayName}`,
} satisfies Record<ProcessKind, (...parts: string[]) => string>;

/** The kind a workflow ID belongs to, from its prefix; undefined for IDs relayflow did not make. */
export function kindOfWorkflowId(workflowId: string): ProcessKind | undefined {
  const prefix = workflowId.split(':', 1)[0];
  return (PROCESS_KINDS as readonly string[]).includes(prefix ?? '') ? (prefix as ProcessKind) : undefined;
}
