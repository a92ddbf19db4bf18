import type UPlot from 'uplot';
import { h } from './dom.js';
import { day, decimalsFor, num } from './format.js';

// uPlot is loaded by its own script tag (served from node_modules by the dashboard server).
declare const uPlot: typeof UPlot;

export interface Chart {
  title: string;
  step: number;
  kind: 'SERIES' | 'FORECAST' | 'SIMULATION';
  unit: string | null;
  history: { t: string; value: number }[];
  band?: { t: string; p10: number; p50: number; p90: number }[];
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
    bands: hasBand ? [{ series: [4, 2], fill: 'rgba(242,184,75,.28)' }] : [],
    legend: { show: true, live: true },
    scales: { x: { time: true } },
    axes: [
      { values: (_u, splits) => splits.map((s) => shortDate.format(new Date(s * 1000))) },
      { size: 60, values: (_u, splits, _axis, _space, increment) => splits.map((s) => num(s, decimalsFor(increment))) },
    ],
  };
}

/**
 * One report chart: the metric's history as a line, and for a forecast or a what-if its fan
 * (the p10–p90 band filled around the p50 line) continuing it. The chart takes its card's
 * width once the card is on the page and is redrawn at the new width whenever the card resizes.
 */
export function drawChart(chart: Chart): HTMLElement {
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
