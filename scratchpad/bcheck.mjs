import * as esbuild from "esbuild"
const entry = process.argv[2]
try {
  const r = await esbuild.build({ entryPoints: [entry], bundle: true, platform: process.argv[3] ?? "browser", format: "esm", write: false, logLevel: "silent", minify: true, metafile: true, outdir: "/tmp/bout", splitting: true })
  const { gzipSync } = await import("node:zlib")
  let total = 0
  for (const f of r.outputFiles) { total += f.contents.length }
  const nodeInputs = Object.keys(r.metafile.inputs).filter((i) => i.includes("node:") )
  console.log("ok files", r.outputFiles.length, "bytes", total, "entry gzip", gzipSync(r.outputFiles[0].contents).length, nodeInputs.length)
} catch (e) {
  const errs = e.errors ?? []
  console.log("errors", errs.length)
  const by = {}
  for (const er of errs) { const k = er.text + " <- " + (er.location?.file ?? ""); by[k] = (by[k] ?? 0) + 1 }
  console.log(Object.entries(by).slice(0, 40).map(([k, v]) => `${v} ${k}`).join("\n"))
}
