/**
 * Building a page with each bundler (Vite 8, esbuild, webpack 5, rspack), each with its defaults for a production
 * browser build and ESM output, and weighing files as a browser fetches them (gzip -9 each). Shared by
 * `bench-bundlers.ts` (pages run on Node) and `bench-apps.ts` (pages run in Chromium).
 */
import { rmSync, readFileSync } from "node:fs"
import { join } from "node:path"
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
