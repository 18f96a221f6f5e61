/**
 * Building a page with each bundler (Vite 8, esbuild, webpack 5, rspack), each with its defaults for a production
 * browser build and ESM output, and weighing files as a browser fetches them (gzip -9 each). Shared by
 * `bench-bundlers.ts` (pages run on Node) and `bench-apps.ts` (pages run in Chromium).
 */
import { spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

export type Bundler = "vite" | "esbuild" | "webpack" | "rspack"
export const BUNDLERS: ReadonlyArray<Bundler> = ["vite", "esbuild", "webpack", "rspack"]

interface Compiler {
  readonly run: (
    callback: (error: Error | null, stats?: { hasErrors(): boolean; toString(preset: "errors-only"): string }) => void
  ) => void
  readonly close: (callback: () => void) => void
}

/** Builds `dir/<entry>` into `outdir` (its entry output is `outdir/<name>.js`). */
export const buildWith = async (bundler: Bundler, dir: string, entry: string, outdir: string): Promise<void> => {
  const name = entry.replace(/\.js$/, "")
  rmSync(outdir, { recursive: true, force: true })
  switch (bundler) {
    case "esbuild": {
      const { build } = await import("esbuild")
      await build({
        absWorkingDir: dir,
        entryPoints: [entry],
        bundle: true,
        minify: true,
        platform: "browser",
        format: "esm",
        splitting: true,
        outdir,
        logLevel: "silent"
      })
      return
    }
    case "vite": {
      const { build } = await import("vite")
      await build({
        configFile: false,
        root: dir,
        logLevel: "silent",
        build: {
          outDir: outdir,
          emptyOutDir: true,
          minify: true,
          target: "esnext",
          modulePreload: false,
          rollupOptions: { input: { [name]: join(dir, entry) }, output: { entryFileNames: "[name].js" } }
        }
      })
      return
    }
    case "webpack":
    case "rspack": {
      const config = {
        mode: "production" as const,
        context: dir,
        entry: { [name]: `./${entry}` },
        target: ["web", "es2022"],
        devtool: false as const,
        performance: { hints: false as const },
        experiments: { outputModule: true },
        output: { path: outdir, module: true, filename: "[name].js", chunkFilename: "[name].[contenthash].js" }
      }
      // What both compilers share, as used here (their own typings differ in what the callback is given).
      const compiler: Compiler = bundler === "webpack"
        ? (await import("webpack")).default(config)
        : (await import("@rspack/core")).rspack(config as never)
      await new Promise<void>((resolve, reject) =>
        compiler.run((error, stats) => {
          compiler.close(() => {})
          if (error) return reject(error)
          if (stats?.hasErrors() === true) return reject(new Error(stats.toString("errors-only").slice(0, 600)))
          resolve()
        })
      )
      return
    }
  }
}

export const gzipOf = (path: string): number => gzipSync(readFileSync(path), { level: 9 }).length

export interface BundledPage {
  readonly page: string
  readonly bundler: Bundler
  /** Gzipped bytes loaded by the first result, and how many files; or why there is none. */
  readonly loadedGzip?: number
  readonly loadedFiles?: number
  readonly error?: string
}

/** A module hook, given to the page's process with `--import`: every `file:` module it loads, one line each. */
const LOAD_HOOK = `import { register } from "node:module"
register("data:text/javascript," + encodeURIComponent(\`import { appendFileSync } from "node:fs"
export async function load(url, context, next) {
  if (url.startsWith("file:")) appendFileSync(process.env.BENCH_LOAD_LOG, url + String.fromCharCode(10))
  return next(url, context)
}\`))
`

/**
 * Runs the built page `outdir/<file>` on Node and resolves with the files of `outdir` it loaded by its first line
 * of output (the call's result: what it loads to close the client afterwards is not counted); rejects with the
 * lines of its stderr naming an error when it ends without printing, and kills it after `timeoutMs`.
 */
export const runLoaded = (dir: string, outdir: string, file: string, timeoutMs: number): Promise<ReadonlyArray<string>> =>
  new Promise((resolve, reject) => {
    const log = join(dir, `run-${file}.log`)
    rmSync(log, { force: true })
    writeFileSync(join(dir, "load-hook.mjs"), LOAD_HOOK)
    const child = spawn(process.execPath, ["--import", join(dir, "load-hook.mjs"), join(outdir, file)], {
      env: { ...process.env, BENCH_LOAD_LOG: log },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.stdout.once("data", () => {
      const loaded = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((line) => line !== "") : []
      resolve(loaded.map((url) => fileURLToPath(url)).filter((path) => path.startsWith(outdir)))
      child.kill("SIGTERM")
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      // Node's trace starts with its own frames; the lines naming the error say what went wrong.
      const lines = stderr.trim().split("\n")
      const named = lines.filter((line) => /error/i.test(line))
      reject(new Error(`the page printed nothing (exit ${code}): ${(named.length > 0 ? named : lines).slice(0, 3).join(" | ")}`))
    })
  })
