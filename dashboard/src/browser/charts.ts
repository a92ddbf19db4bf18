import type UPlot from 'uplot';
import { h } from './dom.js';
import { day, decimalsFor, num } from './format.js';

// uPlot is loaded by its own script tag (served from node_modules by the dashboard server).
declare const uPlot: typeof UPlot;

export interface Chart {
  title: string;
  step: number;
  kind: 'SERIES' | 'FORECAST' | 'SIMULATION' | 'WATERFALL';
  unit: string | null;
  history: { t: string; value: number }[];
  band?: { t: string; p10: number; p50: number; p90: number }[];
  /** The analysed period (shaded). */
  period?: { from: string; to: string };
  /** Events on the timeline (a line and a label each). */
  markers?: { t: string; label: string }[];
  /** A waterfall's bars: start, causes, the unexplained rest, end; `text` is the value as the report formats it. */
  bars?: { label: string; value: number; kind: 'start' | 'cause' | 'remainder' | 'end'; text: string }[];
}

const seconds = (iso: string) => Date.parse(iso) / 1000;
const HEIGHT = 190;
const shortDate = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });

/** The uPlot options for a chart `width` pixels wide: named series whose values the legend shows on hover, in the browser's locale. */
function optionsOf(chart: Chart, width: number, hasBand: boolean): UPlot.Options {
  // Under the cursor, the hovered point; otherwise each series' latest value, so the legend always reads.
  const latest = (u: UPlot, series: number) => {
    const values = u.data[series] ?? [];
    for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null && values[i] !== undefined) return values[i] as number;
    return null;
  };
  const value = (u: UPlot, v: number | null, series: number, idx: number | null) => {
    const shown = idx === null ? latest(u, series) : v;
    return shown === null || shown === undefined ? '–' : num(shown);
  };
  const ahead = chart.kind === 'SIMULATION' ? 'What-if' : 'Forecast';
  const series: UPlot.Series[] = [
    { label: 'Date', value: (u, v, _s, idx) => { const t = idx === null ? latest(u, 0) : v; return t === null || t === undefined ? '–' : day(t * 1000); } },
    { label: chart.unit ? `Actual (${chart.unit})` : 'Actual', stroke: '#2458d6', width: 1.5, value },
  ];
  if (hasBand) {
    series.push(
      { label: 'Low (p10)', stroke: 'rgba(168,100,0,.5)', width: 1, value },
      { label: `${ahead} (p50)`, stroke: '#a86400', width: 2, value },
      { label: 'High (p90)', stroke: 'rgba(168,100,0,.5)', width: 1, value },
    );
  }
  return {
    width,
    height: HEIGHT,
    series,
    plugins: [timeline(chart)],
    bands: hasBand ? [{ series: [4, 2], fill: 'rgba(242,184,75,.28)' }] : [],
    legend: { show: true, live: true },
    scales: { x: { time: true } },
    axes: [
      { values: (_u, splits) => splits.map((s) => shortDate.format(new Date(s * 1000))) },
      { size: 60, values: (_u, splits, _axis, _space, increment) => splits.map((s) => num(s, decimalsFor(increment))) },
    ],
  };
}

const DAY_S = 86_400;

/** Shades the analysed period and draws each event as a dashed line with its label, under the series. */
function timeline(chart: Chart): UPlot.Plugin {
  return {
    hooks: {
      drawAxes: [
        (u: UPlot) => {
          const { ctx, bbox } = u;
          ctx.save();
          if (chart.period) {
            const x0 = u.valToPos(seconds(`${chart.period.from}T00:00:00Z`), 'x', true);
            const x1 = u.valToPos(seconds(`${chart.period.to}T00:00:00Z`) + DAY_S, 'x', true);
            ctx.fillStyle = 'rgba(36,88,214,.08)';
            ctx.fillRect(Math.max(bbox.left, x0), bbox.top, Math.min(bbox.left + bbox.width, x1) - Math.max(bbox.left, x0), bbox.height);
          }
          ctx.strokeStyle = '#b3261e';
          ctx.fillStyle = '#b3261e';
          ctx.setLineDash([4, 3]);
          ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
          for (const m of chart.markers ?? []) {
            const x = u.valToPos(seconds(`${m.t.slice(0, 10)}T00:00:00Z`), 'x', true);
            if (x < bbox.left || x > bbox.left + bbox.width) continue;
            ctx.beginPath();
            ctx.moveTo(x, bbox.top);
            ctx.lineTo(x, bbox.top + bbox.height);
            ctx.stroke();
            ctx.fillText(m.label.slice(0, 40), x + 4, bbox.top + 12 * devicePixelRatio);
          }
          ctx.restore();
        },
      ],
    },
  };
}

/**
 * A waterfall as rows of floating bars (HTML, so it reads without a canvas and scales with its
 * card): from the value before, each cause up or down, the unexplained rest, to the value now.
 */
export function drawWaterfall(chart: Chart): HTMLElement {
  const bars = chart.bars ?? [];
  let level = 0;
  const spans = bars.map((b) => {
    if (b.kind === 'start' || b.kind === 'end') {
      level = b.value;
      return { ...b, from: 0, to: b.value };
    }
    const from = level;
    level += b.value;
    return { ...b, from, to: level };
  });
  const ends = spans.flatMap((s) => (s.kind === 'start' || s.kind === 'end' ? [s.to] : [s.from, s.to]));
  const hi = Math.max(...ends);
  const lo = Math.min(...ends);
  // Totals start at a floor below the lowest level, so the causes are visible next to them.
  const floor = Math.max(0, lo - (hi - lo) * 0.6);
  const pos = (v: number) => `${(((Math.max(v, floor) - floor) / (hi - floor || 1)) * 100).toFixed(2)}%`;
  const rows = spans.map((s) => {
    const left = Math.min(s.from, s.to);
    const right = Math.max(s.from, s.to);
    const tone = s.kind === 'start' || s.kind === 'end' ? 'total' : s.kind === 'remainder' ? 'rest' : s.to >= s.from ? 'up' : 'down';
    const bar = h('span', { class: `bar ${tone}` });
    bar.style.left = s.kind === 'start' || s.kind === 'end' ? '0%' : pos(left);
    bar.style.width = `calc(${pos(right)} - ${s.kind === 'start' || s.kind === 'end' ? '0%' : pos(left)} + 2px)`;
    return h('li', {}, h('span', { class: 'label' }, s.label), h('span', { class: 'track' }, bar), h('span', { class: 'value' }, s.text));
  });
  return h('figure', { class: 'chart waterfall', 'data-kind': 'WATERFALL' }, h('figcaption', {}, chart.title), h('ol', { class: 'waterfall-rows' }, ...rows));
}

/**
 * One report chart: the metric's history as a line, and for a forecast or a what-if its fan
 * (the p10–p90 band filled around the p50 line) continuing it. The chart takes its card's
 * width once the card is on the page and is redrawn at the new width whenever the card resizes.
 */
export function drawChart(chart: Chart): HTMLElement {
  if (chart.kind === 'WATERFALL') return drawWaterfall(chart);
  const plot = h('div', { class: 'plot' });
  const box = h('figure', { class: 'chart', 'data-kind': chart.kind }, h('figcaption', {}, `${chart.title}${chart.unit ? ` (${chart.unit})` : ''}`), plot);
  const band = chart.band ?? [];
  const times = [...chart.history.map((p) => seconds(p.t)), ...band.map((p) => seconds(p.t))];
  const pad = (values: (number | null)[], before: number, after: number) => [...Array<null>(before).fill(null), ...values, ...Array<null>(after).fill(null)];
  const history = pad(chart.history.map((p) => p.value), 0, band.length);
  const data: UPlot.AlignedData = band.length
    ? [times, history, pad(band.map((p) => p.p10), chart.history.length, 0), pad(band.map((p) => p.p50), chart.history.length, 0), pad(band.map((p) => p.p90), chart.history.length, 0)]
    : [times, history];
  let drawn: UPlot | undefined;
  const observer = new ResizeObserver(() => {
    const width = Math.floor(plot.clientWidth);
    if (width <= 0) return;
    if (!drawn) drawn = new uPlot(optionsOf(chart, width, band.length > 0), data, plot);
    else if (Math.abs(drawn.width - width) > 1) drawn.setSize({ width, height: HEIGHT });
  });
  observer.observe(plot);
  return box;
}
