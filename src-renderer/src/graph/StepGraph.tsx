import {
  Background,
  Controls,
  Handle,
  MarkerType,
  MiniMap,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { memo, useCallback, useEffect, useMemo, useRef, type KeyboardEvent, type RefObject } from 'react';
import type { LineageEdge } from '../../../src-shared/analysis';
import type { Step } from '../../../src-shared/model';
import { act, selectStep, setDataFlow, setExpanded, showMoreChildren, useUi } from '../state/ui-store';
import { formatDuration, formatScore } from '../text/format';
import { revealControls } from '../text/visible-controls';
import type { RunModel } from '../workbench/use-run-model';
import { layoutGraph, lineageEdges, type Positioned } from './layout-graph';
import { CHILD_PAGE } from './graph-constants';
import { stepLook, type BlameIndex, type StepLook } from './step-look';
import { ancestorsOf, navigateGraph, visibleGraph, type NavKey, type StepTree } from './step-tree';
import { ForkBranchNode, useForkBranches } from '../experiments/ForkBranchNode';
import { dataFlowTitle, nearestShown, pairKey, selectDataFlow } from './data-flow-edges';
import { dataFlowHandles, HANDLE } from './data-flow-path';
import { DataFlowEdge, type DataFlowEdgeType } from './DataFlowEdge';
import './graph.css';


type StepNodeData = {
  step: Step;
  look: StepLook;
  score: number | null;
  expanded: boolean;
  hiddenBelow: number;
  hasChildren: boolean;
  onLineage: boolean;
  selected: boolean;
};
type MoreNodeData = { parent: string | null; hidden: number };
type StepNodeType = Node<StepNodeData, 'step'>;
type MoreNodeType = Node<MoreNodeData, 'more'>;
type GraphLayout = Map<string, Positioned>;

/** Labels never carry bidi overrides: a name is shown with its controls made visible. */
function plainLabel(text: string): string {
  return revealControls(text)
    .map((p) => p.text)
    .join('');
}

const StepNode = memo(function StepNode({ data }: NodeProps<StepNodeType>) {
  const { step, look, score, expanded, hiddenBelow, hasChildren, onLineage, selected } = data;
  return (
    <div
      className={`graph-node look-${look}${selected ? ' is-selected' : ''}${onLineage ? ' on-lineage' : ''}`}
      data-step-id={step.step_id}
      title={`${plainLabel(step.name)} · ${step.type} · ${step.status}`}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="graph-node-top">
        <span className={`type-tag type-${step.type}`}>{step.type}</span>
        <span className="graph-node-name">{plainLabel(step.name)}</span>
      </div>
      <div className="graph-node-bottom mono">
        <span>{formatDuration(step.duration_ms)}</span>
        <span>{score === null ? '' : `score ${formatScore(score)}`}</span>
        {hasChildren && (
          <button
            type="button"
            className="graph-node-toggle nodrag"
            aria-label={expanded ? 'Collapse' : `Expand ${hiddenBelow} steps`}
            onClick={(e) => {
              e.stopPropagation();
              act(setExpanded, step.step_id, !expanded);
            }}
          >
            {expanded ? '−' : `+${hiddenBelow.toLocaleString('en-US')}`}
          </button>
        )}
      </div>
      <Handle type="source" position={Position.Right} isConnectable={false} />
      {/* Lineage edges leave and enter on the right, arcing beside the column, so they never cross the tree edges. */}
      <Handle id="lin-out" type="source" position={Position.Right} isConnectable={false} style={{ top: '30%' }} />
      <Handle id="lin-in" type="target" position={Position.Right} isConnectable={false} style={{ top: '70%' }} />
      {/* Data flow backwards (into a parent) leaves on the left; forwards it enters on the left, above the tree edge. */}
      <Handle id={HANDLE.leftOut} type="source" position={Position.Left} isConnectable={false} style={{ top: '70%' }} />
      <Handle id={HANDLE.leftIn} type="target" position={Position.Left} isConnectable={false} style={{ top: '30%' }} />
    </div>
  );
});

const MoreNode = memo(function MoreNode({ data }: NodeProps<MoreNodeType>) {
  return (
    <button
      type="button"
      className="graph-more nodrag"
      onClick={() => act(showMoreChildren, data.parent ?? '')}
      title="Show the next page of steps under this parent"
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />+{data.hidden.toLocaleString('en-US')} more
    </button>
  );
});

const nodeTypes = { step: StepNode, more: MoreNode, fork: ForkBranchNode };
const edgeTypes = { dataflow: DataFlowEdge };
const DATA_FLOW_MARKER = { type: MarkerType.ArrowClosed, width: 12, height: 12, color: 'var(--dataflow)' };

export function StepGraph(props: { model: RunModel; selected: string | null }) {
  return (
    <ReactFlowProvider>
      <StepGraphInner {...props} />
    </ReactFlowProvider>
  );
}

function StepGraphInner({ model, selected }: { model: RunModel; selected: string | null }) {
  const { tree, blameIndex, expanded, pinned } = model;
  const pages = useUi((s) => s.childPages);
  const showDataFlow = useUi((s) => s.dataFlow);
  const wrapper = useRef<HTMLDivElement>(null);

  const items = useMemo(() => (tree ? visibleGraph(tree, expanded, pages, CHILD_PAGE, pinned) : []), [tree, expanded, pages, pinned]);
  // Selecting a step rebuilds `items` with the same content; only a real change of
  // what is shown pays for a new dagre layout.
  const signature = useMemo(() => items.map((i) => (i.kind === 'more' ? `${i.id}:${i.hidden}` : `${i.id}:${i.expanded ? 1 : 0}`)).join('|'), [items]);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const layout = useMemo(() => layoutGraph(items), [signature]);

  const nodes = useMemo(() => (tree ? graphNodes(tree, layout, blameIndex, selected) : []), [tree, layout, blameIndex, selected]);

  // Blame lineage-path hops between shown nodes (a hop into a collapsed subtree goes to its nearest shown ancestor).
  const pathHops = useMemo(
    () => (tree ? lineageEdges(model.blame?.lineage_path ?? [], (id) => layout.has(id), (id) => ancestorsOf(tree, id)) : []),
    [tree, layout, model.blame],
  );

  const treeEdges = useMemo(() => (tree ? treeAndPathEdges(layout, pathHops) : []), [tree, layout, pathHops]);

  // Recomputed only when the blame or what is shown changes (layout follows the shown set, not the selection).
  const dataFlow = useMemo(
    () => (tree && showDataFlow ? dataFlowEdges(tree, layout, model.blame?.lineage_edges ?? [], pathHops) : { edges: [] as DataFlowEdgeType[], total: 0 }),
    [tree, layout, model.blame, pathHops, showDataFlow],
  );

  const edges = useMemo<Edge[]>(() => (dataFlow.edges.length ? [...treeEdges, ...dataFlow.edges] : treeEdges), [treeEdges, dataFlow.edges]);

  // Experiments of this run hang off their fork steps, placed after the tree's layout.
  const forks = useForkBranches(model.detail?.run.run_id ?? null, model.detail?.steps, layout);
  const allNodes = useMemo(() => (forks.nodes.length ? [...nodes, ...forks.nodes] : nodes), [nodes, forks.nodes]);
  const allEdges = useMemo(() => (forks.edges.length ? [...edges, ...forks.edges] : edges), [edges, forks.edges]);

  useGraphViewport({ runId: model.detail?.run.run_id ?? null, nodeCount: nodes.length, hasForks: forks.nodes.length > 0, layout, selected, blamed: blameIndex.blamed, wrapper });

  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      if (!['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].includes(e.key)) {
        if ((e.key === 'Enter' || e.key === ' ') && selected && tree && (tree.children.get(selected) ?? []).length) {
          e.preventDefault();
          act(setExpanded, selected, !expanded(selected));
        }
        return;
      }
      e.preventDefault();
      const next = navigateGraph(items, selected, e.key as NavKey);
      if (next !== selected) act(selectStep, next);
    },
    [items, selected, tree, expanded],
  );

  const flowCount = model.blame?.lineage_edges?.length ?? 0;

  return (
    <div className="step-graph" ref={wrapper} tabIndex={0} onKeyDown={onKeyDown} aria-label="Step graph. Arrow keys move the selection, Enter expands or collapses." data-testid="step-graph">
      <ReactFlow
        nodes={allNodes}
        edges={allEdges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        nodesFocusable={false}
        edgesFocusable={false}
        onlyRenderVisibleElements
        minZoom={0.05}
        maxZoom={2}
        onNodeClick={(_, node) => node.type === 'step' && act(selectStep, node.id)}
        colorMode="system"
      >
        <Background gap={24} size={1} />
        <MiniMap pannable zoomable style={{ width: 160, height: 110 }} nodeClassName={(n) => (n.type === 'step' ? `mini-${(n.data as StepNodeData).look}` : n.type === 'fork' ? 'mini-fork' : 'mini-more')} />
        <Controls showInteractive={false} />
      </ReactFlow>
      <GraphLegend flowCount={flowCount} showDataFlow={showDataFlow} shown={dataFlow.edges.length} total={dataFlow.total} forks={forks.nodes.length > 0} />
    </div>
  );
}

/** One React Flow node per laid-out item: a step with its look and blame, or a "more children" stub. */
function graphNodes(tree: StepTree, layout: GraphLayout, blameIndex: BlameIndex, selected: string | null): (StepNodeType | MoreNodeType)[] {
  const out: (StepNodeType | MoreNodeType)[] = [];
  for (const p of layout.values()) {
    if (p.item.kind === 'more') {
      out.push({ id: p.item.id, type: 'more', position: { x: p.x, y: p.y }, data: { parent: p.item.parent, hidden: p.item.hidden }, width: p.width, height: p.height });
      continue;
    }
    const step = tree.byId.get(p.item.id)!;
    out.push({
      id: step.step_id,
      type: 'step',
      position: { x: p.x, y: p.y },
      width: p.width,
      height: p.height,
      data: {
        step,
        look: stepLook(step, blameIndex),
        score: blameIndex.health.get(step.step_id)?.score ?? null,
        expanded: p.item.expanded,
        hiddenBelow: p.item.hiddenBelow,
        hasChildren: (tree.children.get(step.step_id) ?? []).length > 0,
        onLineage: blameIndex.lineage.has(step.step_id),
        selected: step.step_id === selected,
      },
    });
  }
  return out;
}

/** Parent → child edges between shown steps, and the blame's lineage path drawn over them. */
function treeAndPathEdges(layout: GraphLayout, pathHops: [string, string][]): Edge[] {
  const out: Edge[] = [];
  for (const p of layout.values()) {
    if (p.item.parent === null || !layout.has(p.item.parent)) continue;
    out.push({ id: `t:${p.item.id}`, source: p.item.parent, target: p.item.id, type: 'smoothstep', className: 'edge-tree', focusable: false });
  }
  for (const [a, b] of pathHops) {
    out.push({
      id: `l:${a}>${b}`,
      source: a,
      target: b,
      sourceHandle: 'lin-out',
      targetHandle: 'lin-in',
      type: 'smoothstep',
      pathOptions: { offset: 26, borderRadius: 10 },
      className: 'edge-lineage',
      focusable: false,
      zIndex: 10,
    } as Edge);
  }
  return out;
}

/** The inferred data flow between shown steps (capped; hops of the lineage path are already drawn). */
function dataFlowEdges(tree: StepTree, layout: GraphLayout, flows: LineageEdge[], pathHops: [string, string][]): { edges: DataFlowEdgeType[]; total: number } {
  if (flows.length === 0) return { edges: [] as DataFlowEdgeType[], total: 0 };
  const visibleOf = nearestShown(
    (id) => tree.byId.has(id),
    (id) => tree.parentOf(id),
    (id) => layout.get(id)?.item.kind === 'step',
  );
  // A hop of the lineage path is already drawn, emphasised.
  const skip = new Set(pathHops.map(([a, b]) => pairKey(a, b)));
  const picked = selectDataFlow(flows, visibleOf, { skip });
  const nameOf = (id: string) => tree.byId.get(id)?.name ?? id;
  const edges = picked.edges.map((e): DataFlowEdgeType => ({
    id: `f:${pairKey(e.from, e.to)}`,
    source: e.from,
    target: e.to,
    ...dataFlowHandles(layout.get(e.from)!.x, layout.get(e.to)!.x),
    type: 'dataflow',
    className: 'edge-dataflow',
    markerEnd: DATA_FLOW_MARKER,
    focusable: false,
    data: { title: plainLabel(dataFlowTitle(e, nameOf)) },
  }));
  return { edges, total: picked.total };
}

/**
 * Where the graph looks: fitted once per run (a big graph starts readable, at the finding or the top of the tree),
 * fitted again once when experiment branches first appear on a small graph, and following the keyboard selection.
 */
function useGraphViewport({
  runId,
  nodeCount,
  hasForks,
  layout,
  selected,
  blamed,
  wrapper,
}: {
  runId: string | null;
  nodeCount: number;
  hasForks: boolean;
  layout: GraphLayout;
  selected: string | null;
  blamed: Set<string>;
  wrapper: RefObject<HTMLDivElement | null>;
}): void {
  const flow = useReactFlow();
  // Fit once per run; afterwards the user's zoom stays where they put it.
  const fittedRun = useRef<string | null>(null);
  useEffect(() => {
    if (!runId || nodeCount === 0 || fittedRun.current === runId) return;
    fittedRun.current = runId;
    const focus = selected && layout.has(selected) ? selected : [...blamed].find((id) => layout.has(id));
    requestAnimationFrame(() => {
      if (nodeCount <= 40) {
        void flow.fitView({ padding: 0.1, maxZoom: 1.2 });
        return;
      }
      // A big graph fitted whole is unreadable: start readable, at the finding or at the top of the tree.
      const zoom = 0.85;
      if (focus) {
        const p = layout.get(focus)!;
        void flow.setCenter(p.x + p.width / 2, p.y + p.height / 2, { zoom });
      } else {
        let minX = Infinity;
        let minY = Infinity;
        for (const p of layout.values()) {
          minX = Math.min(minX, p.x);
          minY = Math.min(minY, p.y);
        }
        void flow.setViewport({ x: 24 - minX * zoom, y: 24 - minY * zoom, zoom });
      }
    });
  }, [runId, nodeCount, flow, layout, selected, blamed]);

  // Experiment branches load after the tree; a small graph is fitted again once, when they first appear.
  const fittedForks = useRef<string | null>(null);
  useEffect(() => {
    if (!runId || !hasForks || nodeCount > 40 || fittedForks.current === runId) return;
    fittedForks.current = runId;
    requestAnimationFrame(() => void flow.fitView({ padding: 0.1, maxZoom: 1.2 }));
  }, [runId, hasForks, nodeCount, flow]);

  // Keep the keyboard selection on screen.
  useEffect(() => {
    if (!selected || !layout.has(selected) || !wrapper.current) return;
    const p = layout.get(selected)!;
    const { x, y, zoom } = flow.getViewport();
    const rect = wrapper.current.getBoundingClientRect();
    const sx = p.x * zoom + x;
    const sy = p.y * zoom + y;
    const off = sx < 0 || sy < 0 || sx + p.width * zoom > rect.width || sy + p.height * zoom > rect.height;
    if (off) flow.setCenter(p.x + p.width / 2, p.y + p.height / 2, { zoom, duration: 150 });
  }, [selected, layout, flow, wrapper]);
}

function GraphLegend({ flowCount, showDataFlow, shown, total, forks }: { flowCount: number; showDataFlow: boolean; shown: number; total: number; forks: boolean }) {
  return (
    <div className="graph-legend">
      <span className="legend-item look-blamed">blamed</span>
      <span className="legend-item look-co-blamed">co-blamed</span>
      <span className="legend-item look-symptom">symptom</span>
      <span className="legend-item look-error">error</span>
      <span className="legend-item look-weak">low score</span>
      <span className="legend-item look-healthy">healthy</span>
      <span className="legend-item look-unscored">unscored</span>
      <span className="legend-item legend-lineage" title="The blame's path from the cause to the final output">
        lineage path
      </span>
      {flowCount > 0 && (
        <label className="legend-item legend-toggle" title="Inferred data flow between steps (hover an edge for how it was inferred)">
          <input type="checkbox" checked={showDataFlow} onChange={(e) => act(setDataFlow, e.target.checked)} />
          <span className="legend-dataflow-swatch" aria-hidden="true" />
          data flow
          {total > shown && (
            <span className="legend-note">
              {' '}
              ({shown.toLocaleString('en-US')} of {total.toLocaleString('en-US')} shown)
            </span>
          )}
        </label>
      )}
      {forks && <span className="legend-item legend-fork">fork experiment</span>}
    </div>
  );
}
