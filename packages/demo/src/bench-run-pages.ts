/**
 * The browser page weights in a process of their own (`node bench-run-pages.js <folder> [<server url>]`),
 * printed as one JSON line: esbuild's service process is then this process's child, and ends with it, not the
 * benchmark's. With a Streamable HTTP server's URL, each page is also run against it.
 */
import { pageWeights } from "./bench-browser.js"

const dir = process.argv[2]
if (dir === undefined) throw new Error("usage: bench-run-pages.js <folder for the pages> [<server url>]")
process.stdout.write(`${JSON.stringify(await pageWeights(dir, process.argv[3]))}\n`)
