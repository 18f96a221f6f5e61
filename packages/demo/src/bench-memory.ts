/**
 * Memory per open stdio connection (issue 34, item 4): `node --expose-gc bench-memory.js <ours|official> [n]`
 * opens `n` (49) connections to the example server over stdio, one after the other, each listing its tools and
 * making one call, and prints one JSON line: the heap in use per open connection (after a full GC, before and
 * after opening them; then again for a second batch opened after the first closed, when the code is compiled),
 * and the RSS added while they close. The server processes are the clients' children;
 * their memory is not counted (this process's `memoryUsage` only).
 */
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { serverScript } from "./bench-support.js"

interface Connection {
  readonly close: () => Promise<void>
}

const gc = (): void => {
  const collect = (globalThis as { gc?: () => void }).gc
  if (collect === undefined) throw new Error("run with --expose-gc")
  collect()
  collect()
}

const KIB = 1024
const MIB = 1024 * 1024

const openOurs = async (): Promise<Connection> => {
  const { connectStdio } = await import("@mcp-effect/client/node")
  const client = await connectStdio({ command: process.execPath, args: [serverScript, "--era", "both"], clientName: "mcp-bench" })
  await client.listTools()
  await client.callTool("echo", { text: "bench" })
  return { close: () => client.close() }
}

interface OfficialClient {
  connect(transport: unknown): Promise<void>
  listTools(): Promise<unknown>
  callTool(params: { readonly name: string; readonly arguments?: Record<string, unknown> }): Promise<unknown>
  close(): Promise<void>
}
/** Loaded untyped: the package's root typings do not compile under this repo's `source` condition. */
const OFFICIAL: string = "@modelcontextprotocol/client"

const openOfficial = async (): Promise<Connection> => {
  const sdk = (await import(OFFICIAL)) as {
    readonly Client: new(
      info: { readonly name: string; readonly version: string },
      options?: { readonly versionNegotiation?: { readonly mode: "auto" } }
    ) => OfficialClient
  }
  const client = new sdk.Client({ name: "mcp-bench", version: "0.0.0" }, { versionNegotiation: { mode: "auto" } })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverScript, "--era", "both"], stderr: "ignore" }))
  await client.listTools()
  await client.callTool({ name: "echo", arguments: { text: "bench" } })
  return { close: () => client.close() }
}

const kind = process.argv[2] === "official" ? "official" : "ours"
const count = Number(process.argv[3] ?? 49)
const open = kind === "official" ? openOfficial : openOurs

// One connection opened and closed first: the modules are loaded and warm before the baseline.
await (await open()).close()
gc()
const before = process.memoryUsage()
const connections: Array<Connection> = []
for (let i = 0; i < count; i++) connections.push(await open())
gc()
const opened = process.memoryUsage()
const peakBefore = process.resourceUsage().maxRSS
for (const connection of connections) await connection.close()
const peakWhileClosing = process.resourceUsage().maxRSS
gc()
const closed = process.memoryUsage()
// The same again, now that every path of a connection has run and been compiled: the first batch's growth also
// holds code and feedback compiled while it opened (once per process, not per connection), this one does not.
const again: Array<Connection> = []
for (let i = 0; i < count; i++) again.push(await open())
gc()
const reopened = process.memoryUsage()
for (const connection of again) await connection.close()
process.stdout.write(`${
  JSON.stringify({
    client: kind,
    connections: count,
    heapPerConnectionKiB: (opened.heapUsed - before.heapUsed) / count / KIB,
    /** The second batch's: the heap that each open connection holds, without the one-off compiled code. */
    heapPerConnectionWarmKiB: (reopened.heapUsed - closed.heapUsed) / count / KIB,
    rssOpenedMiB: (opened.rss - before.rss) / MIB,
    rssAfterCloseMiB: (closed.rss - opened.rss) / MIB,
    /** How far the peak RSS rose while the connections closed (`maxRSS` is in KiB). */
    peakGrowthWhileClosingMiB: (peakWhileClosing - peakBefore) / KIB
  })
}\n`)
process.exit(0)
