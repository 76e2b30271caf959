import express, { Router } from "express";
import { getAbsoluteFSPath } from "swagger-ui-dist";
import { buildOpenApiDocument } from "./document";

// Swagger UI from its npm package; the initialiser is a file, not inline, so helmet's CSP holds.
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>idwallet API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/init.js"></script></body></html>`;
const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });`;

/** GET /openapi.json and GET /docs (the rendered reference; assets served locally). */
export function docsRouter(serverUrl?: string): Router {
  const document = buildOpenApiDocument(serverUrl);
  return Router()
    .get("/openapi.json", (_req, res) => {
      res.json(document);
    })
    .get("/docs", (_req, res) => {
      res.type("html").send(PAGE);
    })
    .get("/docs/init.js", (_req, res) => {
      res.type("application/javascript").send(INIT);
    })
    .use("/docs/assets", express.static(getAbsoluteFSPath(), { index: false, maxAge: "1d" }));
}
