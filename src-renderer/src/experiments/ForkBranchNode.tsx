import { Handle, Position, type Edge, type Node, type NodeProps } from '@xyflow/react';
import { memo, useMemo, type KeyboardEvent } from 'react';
import type { Step } from '../../../src-shared/model';
import { useEngineQuery } from '../api/use-engine-query';
import { act } from '../state/ui-store';
import { armsLine, formatP, STATUS_LABEL } from './experiment-format';
import { openExperiment, openExperimentsTab } from './experiment-routes';
import { experimentsByStep, placeForkBranches, type ForkBranch, type Rect } from './fork-branches';
import { useLiveExperimentList } from './use-experiment-events';
import './experiments.css';

function stopGraphKeys(ev: KeyboardEvent<HTMLButtonElement>) {
  if (ev.key === 'Enter' || ev.key === ' ') ev.stopPropagation();
}

type ForkNodeData = { branch: ForkBranch; runId: string };
export type ForkNodeType = Node<ForkNodeData, 'fork'>;

/** One experiment hanging off its fork step: its arms at a glance; a click opens its scoreboard. */
export const ForkBranchNode = memo(function ForkBranchNode({ data }: NodeProps<ForkNodeType>) {
  const { branch, runId } = data;
  const e = branch.experiments[0];
  if (branch.overflow) {
    return (
      <button type="button" className="xp-branch is-more nodrag" data-testid="fork-branch-more" onClick={() => act(openExperimentsTab)} onKeyDown={stopGraphKeys}>
        <Handle type="target" position={Position.Left} isConnectable={false} />
        <span className="xp-branch-top">+{branch.experiments.length} more experiments</span>
        <span className="xp-branch-line">open the Experiments tab</span>
      </button>
    );
  }
  const won = e.effect !== null && e.effect > 0 && e.p_value < 0.05;
  return (
    <button
      type="button"
      className={`xp-branch nodrag status-${e.status}${won ? ' is-effective' : ''}`}
      data-testid="fork-branch"
      data-experiment-id={e.experiment_id}
      title={`${e.label ?? `fork at ${e.at}`} · ${armsLine(e)} · p = ${formatP(e.p_value)} — open the scoreboard`}
      onClick={() => act(openExperiment, runId, e.experiment_id)}
      // The graph takes Enter/Space to expand the selected step; on a branch they press the button.
      onKeyDown={stopGraphKeys}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <span className="xp-branch-top">
        <span className="xp-branch-kind">fork</span>
        <span className="xp-branch-name">{e.group_id ? `blame check · N=${e.n}` : (e.label ?? `${e.edit.kind} edit · N=${e.n}`)}</span>
        <span className="xp-branch-p">{e.status === 'done' ? (e.treatment.trials && e.control.trials ? `p ${formatP(e.p_value)}` : '') : STATUS_LABEL[e.status]}</span>
      </span>
      <span className="xp-branch-line">
        <span className="arm-t">treatment {e.treatment.passed}/{e.treatment.trials}</span> · <span className="arm-c">control {e.control.passed}/{e.control.trials}</span>
      </span>
    </button>
  );
});

/**
 * The branch nodes and edges for the step graph: this run's experiments,
 * placed beside their fork steps after the tree's own layout.
 */
export function useForkBranches(runId: string | null, steps: Step[] | undefined, shown: Map<string, Rect>): { nodes: ForkNodeType[]; edges: Edge[] } {
  const args = runId ? { runId } : null;
  const list = useEngineQuery('listExperiments', args);
  useLiveExperimentList(args);
  return useMemo(() => {
    if (!runId || !steps || !list.data || list.data.length === 0) return { nodes: [], edges: [] };
    const branches = placeForkBranches(experimentsByStep(steps, list.data), shown);
    return {
      nodes: branches.map((b) => ({
        id: b.id,
        type: 'fork' as const,
        position: { x: b.rect.x, y: b.rect.y },
        width: b.rect.width,
        height: b.rect.height,
        data: { branch: b, runId },
        focusable: false,
      })),
      edges: branches.map((b) => ({ id: `f:${b.id}`, source: b.stepId, target: b.id, type: 'smoothstep', className: 'edge-fork', focusable: false })),
    };
  }, [runId, steps, list.data, shown]);
}
