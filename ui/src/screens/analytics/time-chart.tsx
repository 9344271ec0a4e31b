import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { formatTime, timeZoneMode } from '../../lib/time.ts';
import type { TimeSeriesChart } from './analytics-data.ts';
import { formatValue } from './format.ts';

export interface TimeChartProps {
  chart: TimeSeriesChart;
  /** A range dragged across the chart, as ISO times. */
  onZoom(from: string, to: string): void;
}

const HEIGHT = 200;

/** Colours from the stylesheet's variables, so the chart follows the light or dark theme. */
function palette() {
  const styles = getComputedStyle(document.documentElement);
  const read = (name: string) => styles.getPropertyValue(name).trim();
  return { axis: read('--muted'), grid: read('--border'), series: [read('--accent'), read('--warn')] };
}

/**
 * One time-series chart (uPlot, in this lazy chunk). Dragging across it calls onZoom with the range;
 * the chart itself does not zoom: the screen reloads the range from the API.
 */
export function TimeChart({ chart, onZoom }: TimeChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const zoom = useRef(onZoom);
  zoom.current = onZoom;
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const colours = palette();
    const axis = {
      stroke: colours.axis,
      grid: { stroke: colours.grid, width: 1 },
      ticks: { stroke: colours.grid },
    };
    const plot = new uPlot(
      {
        width: Math.max(200, element.clientWidth),
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: true, y: false, setScale: false } },
        scales: { x: { time: true } },
        axes: [
          {
            ...axis,
            space: 110,
            values: (_u, ticks) =>
              ticks.map((tick) => formatTime(tick * 1000, timeZoneMode.get()).slice(5, 16)),
          },
          { ...axis, size: 84, values: (_u, ticks) => ticks.map((tick) => formatValue(tick, chart.unit)) },
        ],
        series: [
          {},
          ...chart.series.map((series, index) => ({
            label: series.label,
            stroke: colours.series[index % colours.series.length],
            width: 2,
            spanGaps: false,
            points: { show: chart.times.length < 60 },
          })),
        ],
        hooks: {
          setSelect: [
            (u) => {
              if (u.select.width < 2) return;
              const from = u.posToVal(u.select.left, 'x');
              const to = u.posToVal(u.select.left + u.select.width, 'x');
              u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
              zoom.current(new Date(from * 1000).toISOString(), new Date(to * 1000).toISOString());
            },
          ],
        },
      },
      [chart.times, ...chart.series.map((series) => series.values)],
      element,
    );
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(200, element.clientWidth), height: HEIGHT }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [chart]);
  return (
    <div
      ref={container}
      class="time-chart"
      role="img"
      aria-label={`${chart.title} over time: drag across the chart to zoom to a range; the table shows the values`}
    />
  );
}
