// Line charts drawn as SVG: time on x, one polyline per series.
import { h } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#1f5f8b", "#c0392b", "#2e8b57", "#8e44ad", "#d35400", "#7f8c8d"];
const [WIDTH, HEIGHT, LEFT, BOTTOM] = [600, 180, 44, 18];

function svg(tag, attributes, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

const clock = (seconds) => new Date(seconds * 1000).toISOString().slice(11, 16);
const round = (value) => (value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(1)
  : value.toPrecision(2).replace(/\.?0+$/, ""));

// series: [{name, points: [[epoch seconds, value]], dashed?}] over [from, to].
// The figure says its first series' last value in data-last (tests read it).
export function chart(caption, unit, series, from, to) {
  const top = Math.max(0, ...series.flatMap((s) => s.points.map(([, y]) => y))) || 1;
  const scaleX = (x) => LEFT + ((x - from) / Math.max(1, to - from)) * (WIDTH - LEFT - 4);
  const scaleY = (y) => 4 + (1 - y / (top * 1.1)) * (HEIGHT - BOTTOM - 4);
  const last = series[0]?.points.at(-1)?.[1] ?? 0;
  const lines = series.map((s, i) => svg("polyline", {
    points: s.points.map(([x, y]) => `${scaleX(x).toFixed(1)},${scaleY(y).toFixed(1)}`).join(" "),
    fill: "none", stroke: COLORS[i % COLORS.length], "stroke-width": 2,
    "stroke-dasharray": s.dashed ? "5 4" : "none",
  }));
  const dots = series.flatMap((s, i) => s.points.length === 1 ? [svg("circle", {
    cx: scaleX(s.points[0][0]), cy: scaleY(s.points[0][1]), r: 3, fill: COLORS[i % COLORS.length],
  })] : []);
  const axis = [
    svg("line", { x1: LEFT, y1: HEIGHT - BOTTOM, x2: WIDTH, y2: HEIGHT - BOTTOM, stroke: "#d5dbe0" }),
    svg("line", { x1: LEFT, y1: 0, x2: LEFT, y2: HEIGHT - BOTTOM, stroke: "#d5dbe0" }),
    svg("text", { x: LEFT - 4, y: scaleY(top) + 4, "text-anchor": "end" }, round(top)),
    svg("text", { x: LEFT - 4, y: HEIGHT - BOTTOM, "text-anchor": "end" }, "0"),
    svg("text", { x: LEFT, y: HEIGHT - 4 }, clock(from)),
    svg("text", { x: WIDTH, y: HEIGHT - 4, "text-anchor": "end" }, clock(to)),
  ];
  const summary = series.map((s) => `${s.name} ${round(s.points.at(-1)?.[1] ?? 0)}`).join(", ");
  const picture = svg("svg", { class: "chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": `${caption} (${unit}), latest: ${summary || "no data"}`,
    "data-last": String(last) }, ...axis, ...lines, ...dots);
  return h("figure", { "data-chart": caption },
    h("figcaption", {}, `${caption} `, h("small", {}, unit)),
    picture,
    h("div", { class: "legend" }, series.map((s, i) => h("span", {},
      h("i", { class: `swatch-${i % COLORS.length}` }), `${s.name}: ${round(s.points.at(-1)?.[1] ?? 0)}`))));
}
