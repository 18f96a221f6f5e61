/**
 * The benchmark's page weight: what it counts as loaded before the first call, and a page that cannot be
 * bundled for the browser reported rather than thrown. Real esbuild builds of pages written to a temporary
 * folder.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { stop } from "esbuild"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { weighPage } from "../src/bench-browser.js"

const dir = mkdtempSync(join(tmpdir(), "bench-pages-"))
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  // esbuild's service process, which `weighPage` leaves running for the next build.
  await stop()
})

// Incompressible text, so that whether a module is counted shows in the gzipped size.
const noise = (bytes: number) => randomBytes(bytes).toString("base64")

describe("weighPage", () => {
  it("counts a statically imported module in the initial load and leaves a dynamically imported one out", async () => {
    writeFileSync(join(dir, "eager.js"), `export const eager = ${JSON.stringify(noise(6_000))}\n`)
    writeFileSync(join(dir, "lazy.js"), `export const lazy = ${JSON.stringify(noise(30_000))}\n`)
    const weight = await weighPage({
      name: "split",
      what: "a static and a dynamic import",
      source: `import { eager } from "./eager.js"\nconsole.log(eager, (await import("./lazy.js")).lazy)\n`
    }, dir)
    assert.isUndefined(weight.errorCount)
    const eagerGzip = gzipSync(noise(6_000)).length
    const lazyGzip = gzipSync(noise(30_000)).length
    // The initial load holds the eager module and not the lazy one; one file holds both.
    assert.isAbove(weight.initialGzip ?? 0, eagerGzip)
    assert.isBelow(weight.initialGzip ?? 0, lazyGzip)
    assert.isAbove(weight.oneFileGzip ?? 0, eagerGzip + lazyGzip)
    assert.isBelow(weight.initialChunks ?? 0, weight.chunks ?? 0)
  })

  it("reports a page that reaches a node: module with its errors, without throwing", async () => {
    const weight = await weighPage({
      name: "node-only",
      what: "node:fs",
      source: `import { readFileSync } from "node:fs"\nconsole.log(readFileSync("page.txt", "utf8"))\n`
    }, dir)
    assert.strictEqual(weight.errorCount, 1)
    assert.isUndefined(weight.initialGzip)
    assert.include(weight.firstErrors?.[0] ?? "", `Could not resolve "node:fs"`)
    assert.include(weight.firstErrors?.[0] ?? "", "node-only.js:1")
  })
})
