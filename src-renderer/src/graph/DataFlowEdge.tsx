import type { Edge, EdgeProps } from '@xyflow/react';
import { memo } from 'react';
import { dataFlowPath } from './data-flow-path';

export type DataFlowEdgeType = Edge<{ title: string }, 'dataflow'>;

/** One data-flow edge: a thin dotted arc whose tooltip (SVG title, text only) names the flows it stands for. */
export const DataFlowEdge = memo(function DataFlowEdge({ sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition, markerEnd, data }: EdgeProps<DataFlowEdgeType>) {
  const d = dataFlowPath(sourceX, sourceY, sourcePosition === 'left' ? 'left' : 'right', targetX, targetY, targetPosition === 'left' ? 'left' : 'right');
  return (
    <>
      <path d={d} className="react-flow__edge-path" fill="none" markerEnd={markerEnd} />
      <path d={d} className="react-flow__edge-interaction" fill="none" strokeOpacity={0} strokeWidth={10}>
        <title>{data?.title ?? ''}</title>
      </path>
    </>
  );
});
