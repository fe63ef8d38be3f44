import { formatNumber } from "~/utils/format";

/**
 * A 30-day bar chart drawn as SVG on the server (docs/product.md#back-office-dashboard):
 * no script, the same on a phone (it scales to its card). Each bar has its day and value
 * as a tooltip; the heading says the total, and the figure's label names the busiest day.
 */
export function DayChart({ title, days, values, unit, testId }: { title: string; days: string[]; values: number[]; unit: string; testId: string }) {
  const width = 300;
  const height = 80;
  const max = Math.max(1, ...values);
  const total = values.reduce((a, b) => a + b, 0);
  const step = width / Math.max(1, values.length);
  const peak = values.indexOf(Math.max(...values));
  const label = `${title}，近${days.length}天共 ${formatNumber(total)}${unit}${total > 0 ? `，最多的一天 ${days[peak]}：${formatNumber(values[peak])}${unit}` : ""}`;
  return (
    <figure className="admin-chart" data-testid={testId}>
      <figcaption>
        <span>{title}</span>
        <strong>
          {formatNumber(total)}
          <small>{unit}</small>
        </strong>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height + 14}`} role="img" aria-label={label}>
        {values.map((v, i) => {
          const h = v === 0 ? 0 : Math.max(1, (v / max) * height);
          return (
            <rect key={days[i]} x={i * step + 1} y={height - h} width={Math.max(1, step - 2)} height={h} className="admin-chart-bar">
              <title>{`${days[i]}：${formatNumber(v)}${unit}`}</title>
            </rect>
          );
        })}
        <line x1={0} y1={height + 0.5} x2={width} y2={height + 0.5} className="admin-chart-axis" />
        <text x={0} y={height + 12} className="admin-chart-tick">
          {days[0]?.slice(5)}
        </text>
        <text x={width} y={height + 12} textAnchor="end" className="admin-chart-tick">
          {days.at(-1)?.slice(5)}
        </text>
      </svg>
    </figure>
  );
}
