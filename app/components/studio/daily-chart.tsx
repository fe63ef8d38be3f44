import { useId } from "react";
import { formatDayLabel } from "~/utils/shanghai-time";

/**
 * A bar chart of one value per day, drawn on the server as inline SVG: readable without
 * JavaScript, scaled to its container (viewBox), coloured with the theme's tokens, and
 * named for screen readers by its <title> and <desc> (the numbers themselves are in the
 * table beside it).
 */
export function DailyChart({ title, days, values, unit }: { title: string; days: string[]; values: number[]; unit: string }) {
  const id = useId();
  const width = 600;
  const height = 120;
  const top = 4;
  const bottom = 1;
  const left = 4;
  const plot = height - top - bottom;
  const max = Math.max(1, ...values);
  const step = (width - left * 2) / Math.max(1, values.length);
  const bar = Math.max(2, step * 0.7);
  const total = values.reduce((a, b) => a + b, 0);
  const peak = values.indexOf(Math.max(...values));
  const desc =
    total === 0
      ? `${formatDayLabel(days[0])}至${formatDayLabel(days.at(-1)!)}均为0。`
      : `${formatDayLabel(days[0])}至${formatDayLabel(days.at(-1)!)}共${total}${unit}，最多的一天是${formatDayLabel(days[peak])}，${values[peak]}${unit}。`;
  return (
    <figure className="daily-chart">
      <figcaption>
        {title}
        <span className="muted">
          合计 {total}
          {unit}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={`${id}-t ${id}-d`} preserveAspectRatio="none">
        <title id={`${id}-t`}>{title}</title>
        <desc id={`${id}-d`}>{desc}</desc>
        {values.map((v, i) => {
          const h = v === 0 ? 0 : Math.max(2, (v / max) * plot);
          return (
            <rect key={days[i]} className="daily-chart-bar" x={left + i * step + (step - bar) / 2} y={top + plot - h} width={bar} height={h}>
              <title>{`${formatDayLabel(days[i])}：${v}${unit}`}</title>
            </rect>
          );
        })}
        <line className="daily-chart-axis" x1={0} x2={width} y1={top + plot} y2={top + plot} vectorEffect="non-scaling-stroke" />
      </svg>
      <div className="daily-chart-scale" aria-hidden="true">
        <span>{formatDayLabel(days[0])}</span>
        <span>
          最高 {Math.max(...values)}
        </span>
        <span>{formatDayLabel(days.at(-1)!)}</span>
      </div>
    </figure>
  );
}
