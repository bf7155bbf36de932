import { useLayoutEffect, useRef, useState } from 'react';
import { chartLabel, chartWidth, formatValue, layoutBars, type FigureSet } from '../rules/chart';

/** The width of an element's box, measured before it is painted and again whenever it changes. */
function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState<number | null>(null);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setWidth(element.clientWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

/**
 * Figures drawn twice: a bar chart (hand-written SVG, one image with an accessible name
 * that says every figure) and, beside it, a table of the same figures whose caption names
 * what they are. The SVG scales to its box by its viewBox, which is laid out for the
 * box's width, so its words keep their size from a phone to a wide screen.
 */
export function FigureChart({ subject, caption, set }: { subject: string; caption: string; set: FigureSet }) {
  const box = useWidth();
  const layout = layoutBars(set, { width: chartWidth(box.width) });
  return (
    <div className="figures">
      <div className="chart-box" ref={box.ref}>
        <svg className="chart" role="img" aria-label={chartLabel(subject, set)} viewBox={`0 0 ${layout.width} ${layout.height}`} preserveAspectRatio="xMinYMin meet" focusable="false">
          {layout.rows.map((row, index) => (
            <g key={index}>
              <text className="chart-label" x={0} y={row.labelY} fontSize={layout.fontSize}>
                {row.label}
              </text>
              <rect className="chart-track" x={0} y={row.barY} width={layout.width} height={row.barHeight} rx={3} />
              {row.barWidth > 0 && <rect className="chart-bar" x={0} y={row.barY} width={row.barWidth} height={row.barHeight} rx={3} />}
              <text className="chart-value" x={row.valueX} y={row.valueY} fontSize={layout.fontSize}>
                {row.valueText}
              </text>
            </g>
          ))}
        </svg>
      </div>
      <table className="figures-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{set.column}</th>
            <th scope="col" className="number">
              {set.unit === 'minutes' ? 'Time' : 'Issues'}
            </th>
          </tr>
        </thead>
        <tbody>
          {set.figures.map((figure, index) => (
            <tr key={index}>
              <th scope="row">{figure.label}</th>
              <td className="number">{formatValue(figure.value, set.unit)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
