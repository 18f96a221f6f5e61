/**
 * The inspector's page, bundled into the CLI at build time by `scripts/bundle-cli.mjs` (the `inspector:page`
 * module is its script, built from `packages/cli/inspector/`): nothing is downloaded at run time.
 */
import script from "inspector:page"
import type { PageAssets } from "./server.js"

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark light">
<title>mcp-effect inspector</title>
<script type="module" src="/inspector.js"></script>
</head>
<body><div id="app"></div></body>
</html>
`

export const page: PageAssets = { html, script }
