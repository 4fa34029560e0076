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
import { act, selectStep, setDataFlow, setExpanded, setShowWrappers, showMoreChildren, useUi } from '../state/ui-store';
import { formatDuration, formatScore } from '../text/format';
import { revealControls } from '../text/visible-controls';
import type { RunModel } from '../workbench/use-run-model';
import { layoutGraph, lineageEdges, type Positioned, type TimeOf } from './layout-graph';
import { CHILD_PAGE, FOLD_LOOPS_ABOVE, LOOP_MIN, isFrameworkWrapper } from './graph-constants';
import { shownStandIn, withoutWrappers } from './graph-view';
import { routeAround } from './route-around';
import { RoutedEdge, type RoutedEdgeType } from './RoutedEdge';
import { stepLook, type BlameIndex, type StepLook } from './step-look';
import { ancestorsOf, navigateGraph, visibleGraph, type NavKey, type StepTree } from './step-tree';
import { ForkBranchNode, useForkBranches } from '../experiments/ForkBranchNode';
import { dataFlowTitle, nearestShown, pairKey, selectDataFlow } from './data-flow-edges';
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
type LoopNodeType = Node<{ fold: string; name: string; count: number; failed: number }, 'loop'>;
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
      <Handle type="target" position={Position.Top} isConnectable={false} />
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
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
      {/* Lineage and data flow leave and enter on the right and run in lanes beside the nodes (route-around.ts). */}
      <Handle id="lin-out" type="source" position={Position.Right} isConnectable={false} style={{ top: '30%' }} />
      <Handle id="lin-in" type="target" position={Position.Right} isConnectable={false} style={{ top: '70%' }} />
      {/* Each experiment branch gets its own curve from its fork step. */}
      <Handle id="fork-out" type="source" position={Position.Right} isConnectable={false} style={{ top: '50%' }} />
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
      <Handle type="target" position={Position.Top} isConnectable={false} />+{data.hidden.toLocaleString('en-US')} more
    </button>
  );
});

/** A folded loop: the repeats of the step before it, unfolded on click. */
const LoopNode = memo(function LoopNode({ data }: NodeProps<LoopNodeType>) {
  const name = data.name.length > 24 ? `${data.name.slice(0, 23)}…` : data.name;
  return (
    <button
      type="button"
      className={`graph-more graph-loop nodrag${data.failed ? ' has-failed' : ''}`}
      data-testid="graph-loop"
      onClick={() => act(showMoreChildren, data.fold)}
      title={`${data.count.toLocaleString('en-US')} more "${data.name}" steps in a row${data.failed ? `, ${data.failed} failed` : ''}: click to show them`}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />↻ {name} ×{data.count.toLocaleString('en-US')}
      {data.failed ? ` · ${data.failed} failed` : ''}
    </button>
  );
});

/** Below this zoom node names are unreadable: a graph that would fit only smaller opens at its finding instead. */
const READABLE_ZOOM = 0.6;

const nodeTypes = { step: StepNode, more: MoreNode, loop: LoopNode, fork: ForkBranchNode };
const edgeTypes = { routed: RoutedEdge };
const SEQUENCE_MARKER = { type: MarkerType.ArrowClosed, width: 14, height: 14, color: 'var(--border-strong)' };
const LINEAGE_MARKER = { type: MarkerType.ArrowClosed, width: 14, height: 14, color: 'var(--lineage)' };
const DATA_FLOW_MARKER = { type: MarkerType.ArrowClosed, width: 12, height: 12, color: 'var(--dataflow)' };

export function StepGraph(props: { model: RunModel; selected: string | null }) {
  return (
    <ReactFlowProvider>
      <StepGraphInner {...props} />
    </ReactFlowProvider>
  );
}

function StepGraphInner({ model, selected }: { model: RunModel; selected: string | null }) {
  const { tree: fullTree, blameIndex, expanded, pinned } = model;
  const pages = useUi((s) => s.childPages);
  const allDataFlow = useUi((s) => s.dataFlow);
  const showWrappers = useUi((s) => s.showWrappers);
  const wrapper = useRef<HTMLDivElement>(null);

  // Framework wrappers (graph-constants.ts) are taken out unless asked for; a wrapper the blame names stays.
  const blamePins = useMemo(() => new Set([...blameIndex.blamed, ...blameIndex.lineage]), [blameIndex]);
  const tree = useMemo(
    () => (fullTree && !showWrappers ? withoutWrappers(fullTree, (s) => isFrameworkWrapper(s.name), blamePins) : fullTree),
    [fullTree, showWrappers, blamePins],
  );
  const wrappersHidden = fullTree && tree ? fullTree.steps.length - tree.steps.length : 0;
  // A selected wrapper is stood in for by its nearest shown ancestor.
  const shownSelected = fullTree && tree ? shownStandIn(fullTree, tree, selected) : null;
  const shownPinned = useMemo(() => {
    if (!fullTree || !tree) return new Set<string>();
    const out = new Set<string>();
    for (const id of pinned) {
      const s = shownStandIn(fullTree, tree, id);
      if (s) out.add(s);
    }
    return out;
  }, [fullTree, tree, pinned]);

  // Big runs fold their loops (repeats of one step) behind one node each; small ones show every step.
  const loopMin = tree && tree.steps.length > FOLD_LOOPS_ABOVE ? LOOP_MIN : null;
  const items = useMemo(() => (tree ? visibleGraph(tree, expanded, pages, CHILD_PAGE, shownPinned, loopMin) : []), [tree, expanded, pages, shownPinned, loopMin]);
  // Selecting a step rebuilds `items` with the same content; only a real change of
  // what is shown pays for a new dagre layout.
  const signature = useMemo(() => items.map((i) => (i.kind === 'more' ? `${i.id}:${i.hidden}` : i.kind === 'loop' ? `${i.id}:${i.count}` : `${i.id}:${i.expanded ? 1 : 0}`)).join('|'), [items]);
  const timeOf = useMemo<TimeOf>(
    () => (id) => {
      const s = tree?.byId.get(id);
      return s ? { start: s.started_at, end: s.ended_at ?? s.started_at } : null;
    },
    [tree],
  );
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const graph = useMemo(() => layoutGraph(items, timeOf), [signature, timeOf]);
  const layout = graph.positions;

  const nodes = useMemo(() => (tree ? graphNodes(tree, layout, blameIndex, shownSelected) : []), [tree, layout, blameIndex, shownSelected]);

  // Blame lineage-path hops between shown nodes (a hop into a collapsed subtree or a hidden wrapper goes to its nearest shown ancestor).
  const pathHops = useMemo(
    () => (fullTree ? lineageEdges(model.blame?.lineage_path ?? [], (id) => layout.has(id), (id) => ancestorsOf(fullTree, id)) : []),
    [fullTree, layout, model.blame],
  );

  const treeEdges = useMemo(() => structureEdges(graph.contains, graph.sequence), [graph]);
  const pathEdges = useMemo(() => lineagePathEdges(layout, pathHops), [layout, pathHops]);

  // Data flow of the selected step and along the blame path, or all of it when asked for.
  const dataFlow = useMemo(
    () =>
      fullTree && tree
        ? dataFlowEdges(fullTree, tree, layout, model.blame?.lineage_edges ?? [], pathHops, allDataFlow ? null : { selected: shownSelected, path: new Set(pathHops.flat()) })
        : { edges: [] as RoutedEdgeType[], total: 0 },
    [fullTree, tree, layout, model.blame, pathHops, allDataFlow, shownSelected],
  );

  const edges = useMemo<Edge[]>(() => [...treeEdges, ...pathEdges, ...dataFlow.edges], [treeEdges, pathEdges, dataFlow.edges]);

  // Experiments of this run hang off their fork steps, placed after the tree's layout; each gets its own curve from its step.
  const forks = useForkBranches(model.detail?.run.run_id ?? null, model.detail?.steps, layout);
  const forkEdges = useMemo(() => forks.edges.map((e): Edge => ({ ...e, type: 'default', sourceHandle: 'fork-out' })), [forks.edges]);
  const allNodes = useMemo(() => (forks.nodes.length ? [...nodes, ...forks.nodes] : nodes), [nodes, forks.nodes]);
  const allEdges = useMemo(() => (forkEdges.length ? [...edges, ...forkEdges] : edges), [edges, forkEdges]);

  useGraphViewport({ runId: model.detail?.run.run_id ?? null, nodeCount: nodes.length, hasForks: forks.nodes.length > 0, layout, selected: shownSelected, blamed: blameIndex.blamed, wrapper });

  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      if (!['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].includes(e.key)) {
        if ((e.key === 'Enter' || e.key === ' ') && shownSelected && tree && (tree.children.get(shownSelected) ?? []).length) {
          e.preventDefault();
          act(setExpanded, shownSelected, !expanded(shownSelected));
        }
        return;
      }
      e.preventDefault();
      const next = navigateGraph(items, shownSelected, e.key as NavKey);
      if (next !== shownSelected) act(selectStep, next);
    },
    [items, shownSelected, tree, expanded],
  );

  const flowCount = model.blame?.lineage_edges?.length ?? 0;

  return (
    <div className="step-graph" ref={wrapper} tabIndex={0} onKeyDown={onKeyDown} aria-label="Step graph. Arrow keys move the selection, Enter expands or collapses." data-testid="step-graph" data-node-count={nodes.length}>
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
      <GraphLegend
        flowCount={flowCount}
        allDataFlow={allDataFlow}
        shown={dataFlow.edges.length}
        total={dataFlow.total}
        forks={forks.nodes.length > 0}
        wrappers={{ shown: showWrappers, hidden: wrappersHidden, any: showWrappers || wrappersHidden > 0 }}
      />
    </div>
  );
}

/** One React Flow node per laid-out item: a step with its look and blame, or a "more children" stub. */
function graphNodes(tree: StepTree, layout: GraphLayout, blameIndex: BlameIndex, selected: string | null): (StepNodeType | MoreNodeType | LoopNodeType)[] {
  const out: (StepNodeType | MoreNodeType | LoopNodeType)[] = [];
  for (const p of layout.values()) {
    if (p.item.kind === 'more') {
      out.push({ id: p.item.id, type: 'more', position: { x: p.x, y: p.y }, data: { parent: p.item.parent, hidden: p.item.hidden }, width: p.width, height: p.height });
      continue;
    }
    if (p.item.kind === 'loop') {
      const { id, name, count, failed } = p.item;
      out.push({ id, type: 'loop', position: { x: p.x, y: p.y }, data: { fold: id, name, count, failed }, width: p.width, height: p.height });
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

/** Containment (parent → its first children, thin) and execution order (one sibling → the next, arrowed). */
function structureEdges(contains: [string, string][], sequence: [string, string][]): Edge[] {
  const out: Edge[] = [];
  for (const [a, b] of contains) out.push({ id: `t:${a}>${b}`, source: a, target: b, type: 'smoothstep', className: 'edge-tree', focusable: false });
  for (const [a, b] of sequence) {
    out.push({ id: `s:${a}>${b}`, source: a, target: b, type: 'smoothstep', className: 'edge-seq', markerEnd: SEQUENCE_MARKER, focusable: false });
  }
  return out;
}

/** The blame's lineage path, each hop routed in a lane beside the nodes it passes (never through their text). */
function lineagePathEdges(layout: GraphLayout, pathHops: [string, string][]): RoutedEdgeType[] {
  const boxes = [...layout.values()];
  return pathHops.map(([a, b], i) => ({
    id: `l:${a}>${b}`,
    source: a,
    target: b,
    sourceHandle: 'lin-out',
    targetHandle: 'lin-in',
    type: 'routed',
    className: 'edge-lineage',
    markerEnd: LINEAGE_MARKER,
    focusable: false,
    zIndex: 10,
    data: { path: routeAround(layout.get(a)!, layout.get(b)!, boxes, i % 3), title: 'blame lineage path' },
  }));
}

/**
 * The inferred data flow between shown steps (capped; hops of the lineage path are already drawn). With `only`,
 * just the flows into or out of the selected step and those between steps of the lineage path: the whole
 * data flow of a 50-step run is a hairball.
 */
function dataFlowEdges(
  fullTree: StepTree,
  tree: StepTree,
  layout: GraphLayout,
  flows: LineageEdge[],
  pathHops: [string, string][],
  only: { selected: string | null; path: Set<string> } | null,
): { edges: RoutedEdgeType[]; total: number } {
  if (flows.length === 0) return { edges: [], total: 0 };
  const visibleOf = nearestShown(
    (id) => fullTree.byId.has(id),
    (id) => fullTree.parentOf(id),
    (id) => layout.get(id)?.item.kind === 'step',
  );
  // A hop of the lineage path is already drawn, emphasised.
  const skip = new Set(pathHops.map(([a, b]) => pairKey(a, b)));
  const picked = selectDataFlow(flows, visibleOf, { skip });
  const wanted = only ? picked.edges.filter((e) => e.from === only.selected || e.to === only.selected || (only.path.has(e.from) && only.path.has(e.to))) : picked.edges;
  const nameOf = (id: string) => fullTree.byId.get(id)?.name ?? tree.byId.get(id)?.name ?? id;
  const boxes = [...layout.values()];
  const edges = wanted.map((e, i): RoutedEdgeType => ({
    id: `f:${pairKey(e.from, e.to)}`,
    source: e.from,
    target: e.to,
    sourceHandle: 'lin-out',
    targetHandle: 'lin-in',
    type: 'routed',
    className: 'edge-dataflow',
    markerEnd: DATA_FLOW_MARKER,
    focusable: false,
    data: { path: routeAround(layout.get(e.from)!, layout.get(e.to)!, boxes, 3 + (i % 4), { out: 0.45, in: 0.55 }), title: plainLabel(dataFlowTitle(e, nameOf)) },
  }));
  return { edges, total: only ? wanted.length : picked.total };
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
      // Fitted whole only while that stays readable (a long chain fitted whole is a sliver).
      const rect = wrapper.current?.getBoundingClientRect();
      let minX = Infinity;
      let minY = Infinity;
      let maxX = -Infinity;
      let maxY = -Infinity;
      for (const p of layout.values()) {
        minX = Math.min(minX, p.x);
        minY = Math.min(minY, p.y);
        maxX = Math.max(maxX, p.x + p.width);
        maxY = Math.max(maxY, p.y + p.height);
      }
      const fitZoom = rect ? Math.min(rect.width / (maxX - minX + 40), rect.height / (maxY - minY + 40)) : 0;
      if (nodeCount <= 40 && fitZoom >= READABLE_ZOOM) {
        void flow.fitView({ padding: 0.1, maxZoom: 1.2 });
        return;
      }
      // A big graph fitted whole is unreadable: start readable, at the finding or at the top of the tree.
      const zoom = 0.85;
      if (focus) {
        const p = layout.get(focus)!;
        void flow.setCenter(p.x + p.width / 2, p.y + p.height / 2, { zoom });
      } else {
        void flow.setViewport({ x: 24 - minX * zoom, y: 24 - minY * zoom, zoom });
      }
    });
  }, [runId, nodeCount, flow, layout, selected, blamed, wrapper]);

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

function GraphLegend({
  flowCount,
  allDataFlow,
  shown,
  total,
  forks,
  wrappers,
}: {
  flowCount: number;
  allDataFlow: boolean;
  shown: number;
  total: number;
  forks: boolean;
  wrappers: { shown: boolean; hidden: number; any: boolean };
}) {
  return (
    <div className="graph-legend">
      <span className="legend-item look-blamed">blamed</span>
      <span className="legend-item look-co-blamed">co-blamed</span>
      <span className="legend-item look-symptom">symptom</span>
      <span className="legend-item look-error">error</span>
      <span className="legend-item look-weak">low score</span>
      <span className="legend-item look-healthy">healthy</span>
      <span className="legend-item look-unscored">unscored</span>
      <span className="legend-item legend-seq" title="Ran one after the other (steps side by side ran in parallel)">
        then
      </span>
      <span className="legend-item legend-lineage" title="The blame's path from the cause to the final output">
        lineage path
      </span>
      {flowCount > 0 && (
        <label className="legend-item legend-toggle" title="Inferred data flow between steps (hover an edge for how it was inferred). Off: only the selected step's and the lineage path's.">
          <input type="checkbox" checked={allDataFlow} onChange={(e) => act(setDataFlow, e.target.checked)} />
          <span className="legend-dataflow-swatch" aria-hidden="true" />
          all data flow
          {allDataFlow && total > shown && (
            <span className="legend-note">
              {' '}
              ({shown.toLocaleString('en-US')} of {total.toLocaleString('en-US')} shown)
            </span>
          )}
        </label>
      )}
      {wrappers.any && (
        <label className="legend-item legend-toggle" title="LangGraph / LangChain glue steps (__start__, ChannelWrite, RunnableSequence…); hidden, their children move up to the step above">
          <input type="checkbox" checked={wrappers.shown} onChange={(e) => act(setShowWrappers, e.target.checked)} />
          framework steps{!wrappers.shown && ` (${wrappers.hidden.toLocaleString('en-US')} hidden)`}
        </label>
      )}
      {forks && <span className="legend-item legend-fork">fork experiment</span>}
    </div>
  );
}
