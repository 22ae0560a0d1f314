// The subproject process a start request builds: shared by POST /v1/subprojects and the onboarding's subproject step.
import type { Config } from '../../../../common/config.js';
import { workflowIds } from '../../../kinds.js';
import type { SubprojectInput } from '../contract.js';
import type { BuiltProcess } from '../../../../api/processes/start.js';

export interface SubprojectFields {
  displayName: string;
  parentProjectId?: string;
}

/** No rules between fields: the errors are always empty (the shape is the builders' shape all the same). */
export function subprojectInput(
  b: SubprojectFields,
  _prefix: string,
  ctx: { projectId: string; config: Pick<Config, 'processes'> },
): BuiltProcess<SubprojectInput, 'subproject'> {
  const parentProjectId = b.parentProjectId ?? ctx.projectId;
  return {
    errors: [],
    processId: workflowIds.subproject(parentProjectId, b.displayName),
    kind: 'subproject',
    input: { parentProjectId, displayName: b.displayName, ...ctx.config.processes.subproject },
  };
}
