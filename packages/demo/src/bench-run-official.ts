/** The official SDK client (`@modelcontextprotocol/client` 2.x) as a benchmark runner; loaded only for its runs. */
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import type { Runner, Target } from "./bench-run.js"
import { echoArgs, pool } from "./bench-run-shared.js"

interface OfficialClient {
  connect(transport: unknown): Promise<void>
  listTools(): Promise<{ readonly tools: ReadonlyArray<unknown> }>
  callTool(params: { readonly name: string; readonly arguments?: Record<string, unknown> }): Promise<unknown>
  getProtocolEra(): "modern" | "legacy" | undefined
  close(): Promise<void>
}
interface OfficialModule {
  readonly Client: new(
    info: { readonly name: string; readonly version: string },
    options?: { readonly versionNegotiation?: { readonly mode: "auto" | "legacy" } }
  ) => OfficialClient
  readonly StreamableHTTPClientTransport: new(url: URL) => unknown
}
/** Loaded untyped: the package's root typings do not compile under this repo's `source` condition. */
const OFFICIAL: string = "@modelcontextprotocol/client"

/** A subclass probes `server/discover` in place instead of on a sibling process (one server process). */
class InPlaceStdioClientTransport extends StdioClientTransport {}

export const official = async (target: Target): Promise<Runner> => {
  const sdk = (await import(OFFICIAL)) as OfficialModule
  const client = new sdk.Client({ name: "mcp-bench", version: "0.0.0" }, { versionNegotiation: { mode: "auto" } })
  await client.connect(
    target.transport === "stdio"
      ? new InPlaceStdioClientTransport({ command: target.command ?? "", args: [...(target.args ?? [])], stderr: "ignore" })
      : new sdk.StreamableHTTPClientTransport(new URL(target.url ?? ""))
  )
  return {
    era: client.getProtocolEra() ?? "unknown",
    calls: (n, width) => pool(n, width, () => client.callTool({ name: "echo", arguments: echoArgs })),
    listTools: async () => (await client.listTools()).tools.length,
    close: () => client.close()
  }
}

