import type { Edge, EdgeProps } from '@xyflow/react';
import { memo } from 'react';

export type RoutedEdgeType = Edge<{ path: string; title: string }, 'routed'>;

/** An edge drawn along a path computed from the layout (route-around.ts), not between React Flow's handle points. */
export const RoutedEdge = memo(function RoutedEdge({ markerEnd, data }: EdgeProps<RoutedEdgeType>) {
  const d = data?.path ?? '';
  return (
    <>
      <path d={d} className="react-flow__edge-path" fill="none" markerEnd={markerEnd} />
      <path d={d} className="react-flow__edge-interaction" fill="none" strokeOpacity={0} strokeWidth={10}>
        {data?.title && <title>{data.title}</title>}
      </path>
    </>
  );
});
