import { readFileSync } from "node:fs";
import type { Request, Response } from "express";

/** The console's own stylesheet: small, no framework. */
const CONSOLE_CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{display:flex;gap:1.5rem;align-items:center;padding:.6rem 1.2rem;background:#1d2430;color:#fff}
header nav a{color:#cfe0ff;margin-right:1rem;text-decoration:none}header .who{color:#9fb0c8}
main{padding:1rem 1.4rem;max-width:1200px}h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.4rem 0 .5rem}
table{border-collapse:collapse;background:#fff;width:100%;margin-bottom:1rem}
th,td{border:1px solid #dde2ea;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#eef1f5}
code,.mono{font-family:ui-monospace,monospace;font-size:12px;word-break:break-all}
.ok{color:#137333}.bad{color:#b3261e;font-weight:600}.warn{color:#9a6700}
.inline{display:inline}form.inline button{margin:0 .2rem}.card{background:#fff;border:1px solid #dde2ea;padding:.8rem 1rem;margin-bottom:1rem}
.notice{padding:.7rem 1rem;border:1px solid #9a6700;background:#fff8e1;margin-bottom:1rem}
.chart{min-height:240px;background:#fff}figure{margin:0 0 1rem}figcaption{font-weight:600;margin-bottom:.3rem}
input[type=text],input[type=password],select{padding:.25rem .4rem}
`;

/**
 * The console's script: draws each `data-chart` element's series with uPlot (served from the installed package).
 * No inline script anywhere, so the service's Content-Security-Policy (script-src 'self') stays as it is.
 */
const CONSOLE_JS = `"use strict";
(function () {
  var colors = ["#1a73e8", "#d93025", "#188038", "#9334e6"];
  document.querySelectorAll("[data-chart]").forEach(function (el) {
    var spec = JSON.parse(el.getAttribute("data-chart"));
    var compact = function (u, values) {
      return values.map(function (v) {
        var a = Math.abs(v);
        return a >= 1e9 ? +(v / 1e9).toFixed(2) + "G" : a >= 1e6 ? +(v / 1e6).toFixed(2) + "M" : a >= 1e3 ? +(v / 1e3).toFixed(2) + "k" : String(v);
      });
    };
    var axes = [{}, { scale: "y", label: spec.y, size: 70, values: compact }];
    var scales = { x: { time: true } };
    if (spec.y2) { axes.push({ scale: "y2", side: 1, label: spec.y2, grid: { show: false } }); scales.y2 = {}; }
    var series = [{}].concat(spec.series.map(function (s, i) {
      return { label: s.label, stroke: colors[i % colors.length], width: 2, scale: s.axis || "y", spanGaps: false };
    }));
    var data = [spec.x].concat(spec.series.map(function (s) { return s.values; }));
    new uPlot({ width: Math.max(320, el.clientWidth || 900), height: 240, series: series, axes: axes, scales: scales }, data, el);
  });
})();
`;

/** A file of the installed uPlot package, read once. */
const uplotFile = (name: string): string => readFileSync(require.resolve(`uplot/dist/${name}`), "utf8");

/** Every asset a console page may load, by name, with its media type. */
const ASSETS: ReadonlyMap<string, { readonly type: string; readonly body: () => string }> = new Map([
  ["console.css", { type: "text/css", body: () => CONSOLE_CSS }],
  ["console.js", { type: "text/javascript", body: () => CONSOLE_JS }],
  ["uPlot.min.css", { type: "text/css", body: () => uplotFile("uPlot.min.css") }],
  ["uPlot.iife.min.js", { type: "text/javascript", body: () => uplotFile("uPlot.iife.min.js") }],
]);

/**
 * The bundle budget (docs/operations.md): a console page loads at most this many bytes of JS and CSS, uncompressed.
 * uPlot is about 51 kB of it; the console's own script and styles a few kB.
 */
export const CONSOLE_BUNDLE_BUDGET_BYTES = 64 * 1024;

const cache = new Map<string, string>();

/** The text of a console asset, if there is one by that name. */
export function consoleAsset(name: string): { type: string; body: string } | undefined {
  const asset = ASSETS.get(name);
  if (!asset) return undefined;
  const body = cache.get(name) ?? asset.body();
  cache.set(name, body);
  return { type: asset.type, body };
}

/** Serves GET /console/assets/:name from memory, cached by the browser for an hour. */
export function serveConsoleAsset(req: Request, res: Response): void {
  const asset = consoleAsset(String(req.params.name));
  if (!asset) {
    res.status(404).type("text/plain").send("Not found");
    return;
  }
  res.setHeader("Cache-Control", "private, max-age=3600");
  res.type(asset.type).send(asset.body);
}
