// A campaign's rate over time, from the page's own readings of GET /v1/campaigns/:id (the API keeps no series):
// delivered and failed per second between one refresh and the next, drawn as two lines, told in words beside.
import { el, svgEl } from './dom.js';

const KEEP = 60;
/** Per campaign, its readings: when, delivered, failed (counts so far). */
const samples = new Map();

/** Keeps a reading (the last KEEP of them). */
export function sampleCampaign(id, { delivered, failed }) {
  const list = samples.get(id) || [];
  list.push({ t: Date.now(), delivered, failed });
  if (list.length > KEEP) list.shift();
  samples.set(id, list);
}

const W = 240;
const H = 44;
const round = (x) => (x >= 10 ? Math.round(x) : Math.round(x * 10) / 10);

/** Delivered and failed per second in each interval between readings, as a sparkline with its words; [] before two readings. */
export function rateSparkline(id, everyMs) {
  const list = samples.get(id) || [];
  if (list.length < 2) return [el('p', `Rate over time: drawn from the next refresh on (every ${everyMs / 1000} s).`, 'spark-note')];
  const rates = [];
  for (let i = 1; i < list.length; i++) {
    const dt = Math.max(0.001, (list[i].t - list[i - 1].t) / 1000);
    rates.push({ delivered: Math.max(0, list[i].delivered - list[i - 1].delivered) / dt, failed: Math.max(0, list[i].failed - list[i - 1].failed) / dt });
  }
  const peak = Math.max(0.001, ...rates.map((r) => Math.max(r.delivered, r.failed)));
  const x = (i) => (rates.length === 1 ? W : (W * i) / (rates.length - 1));
  const y = (v) => H - 2 - ((H - 4) * v) / peak;
  const line = (field) => rates.map((r, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(r[field]).toFixed(1)}`).join(' ');
  const last = rates[rates.length - 1];
  const peakOf = (field) => round(Math.max(...rates.map((r) => r[field])));
  const words =
    `Rate over the last ${rates.length} refresh intervals: delivered ${round(last.delivered)}/s now (peak ${peakOf('delivered')}/s), ` +
    `failed ${round(last.failed)}/s now (peak ${peakOf('failed')}/s)`;
  const svg = svgEl('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: 'spark', role: 'img', 'aria-label': words });
  const title = svgEl('title');
  title.textContent = words;
  svg.append(title, svgEl('line', { x1: 0, y1: H - 1, x2: W, y2: H - 1, class: 'axis' }));
  if (rates.length === 1) {
    // One interval: a level line across.
    svg.append(svgEl('path', { d: `M0,${y(last.delivered)} L${W},${y(last.delivered)}`, class: 'line-delivered' }));
    svg.append(svgEl('path', { d: `M0,${y(last.failed)} L${W},${y(last.failed)}`, class: 'line-failed' }));
  } else {
    svg.append(svgEl('path', { d: line('delivered'), class: 'line-delivered' }), svgEl('path', { d: line('failed'), class: 'line-failed' }));
  }
  const note = el('p', `${words}. Solid green: delivered; dashed red: failed.`, 'spark-note');
  note.setAttribute('aria-hidden', 'true'); // the picture's label says the same
  return [el('h3', 'Rate over time'), svg, note];
}
