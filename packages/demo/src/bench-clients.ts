/**
 * One benchmark run per client: spawn one server process, connect (handshake/probe + the first `tools/list`),
 * warm up, time the sequential and the concurrent `tools/call` phases, close. The clock is read only at the
 * phase boundaries.
 */
import { connectStdio, McpClient, NodeMcpClient } from "@mcp-effect/client"
import { StdioClientTransport, type StdioServerParameters } from "@modelcontextprotocol/client/stdio"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import {
  checkEcho,
  cpuNow,
  echoArgs,
  inFlightPool,
  type Marks,
  resultOf,
  type RunResult,
  serverArgs,
  type ServerEra,
  type Workload
} from "./bench-support.js"

/** How a client is told which era to use: `auto` probes; `legacy` goes straight to `initialize`. */
export type ClientEra = "auto" | "legacy"

const CLIENT_NAME = "mcp-effect-bench"

// -----------------------------------------------------------------------------
// Ours, Effect API: the whole run is one Effect program
// -----------------------------------------------------------------------------

const now = Effect.sync(() => performance.now())
const cpu = Effect.sync(cpuNow)

export const runOursEffect = (serverEra: ServerEra, clientEra: ClientEra, workload: Workload): Promise<RunResult> =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    return yield* Effect.gen(function*() {
      const start = yield* now
      const context = yield* Layer.buildWithScope(
        NodeMcpClient.layerStdio({
          command: process.execPath,
          args: serverArgs(serverEra),
          clientName: CLIENT_NAME,
          era: clientEra
        }),
        scope
      )
      const client = Context.get(context, McpClient.McpClient)
      yield* client.listTools()
      const connected = yield* now

      const era = yield* client.era
      const call = client.callTool("echo", echoArgs)
      for (let i = 0; i < workload.warmupCalls; i++) {
        const result = yield* call
        if (i === 0) checkEcho(result, "ours (Effect)")
      }

      const warm = yield* now
      const warmCpu = yield* cpu
      for (let i = 0; i < workload.sequentialCalls; i++) yield* call
      const sequential = yield* now
      const sequentialCpu = yield* cpu
      yield* Effect.forEach(Array.from({ length: workload.concurrentCalls }), () => call, {
        concurrency: workload.inFlight,
        discard: true
      })
      const concurrent = yield* now
      const concurrentCpu = yield* cpu
      yield* Scope.close(scope, Exit.void)
      const closed = yield* now
      const marks: Marks = {
        start, connected, warm, warmCpu, sequential, sequentialCpu, concurrent, concurrentCpu, closed
      }
      return resultOf(marks, workload, era)
    }).pipe(Effect.ensuring(Scope.close(scope, Exit.void)))
  }).pipe(Effect.runPromise)

// -----------------------------------------------------------------------------
// Ours, Promise API
// -----------------------------------------------------------------------------

/**
 * The timed phases of a Promise-driven run, after warm-up: sequential calls, then calls in flight, then close.
 */
const timedPhases = async (
  run: {
    readonly start: number
    readonly connected: number
    readonly era: string
    readonly call: () => Promise<unknown>
    readonly close: () => Promise<void>
  },
  workload: Workload
): Promise<RunResult> => {
  const warm = performance.now()
  const warmCpu = cpuNow()
  for (let i = 0; i < workload.sequentialCalls; i++) await run.call()
  const sequential = performance.now()
  const sequentialCpu = cpuNow()
  await inFlightPool(workload.concurrentCalls, workload.inFlight, run.call)
  const concurrent = performance.now()
  const concurrentCpu = cpuNow()
  await run.close()
  const closed = performance.now()
  const { connected, era, start } = run
  return resultOf(
    { start, connected, warm, warmCpu, sequential, sequentialCpu, concurrent, concurrentCpu, closed },
    workload,
    era
  )
}

export const runOursPromise = async (
  serverEra: ServerEra,
  clientEra: ClientEra,
  workload: Workload
): Promise<RunResult> => {
  const start = performance.now()
  const client = await connectStdio({
    command: process.execPath,
    args: serverArgs(serverEra),
    clientName: CLIENT_NAME,
    era: clientEra
  })
  try {
    await client.listTools()
    const connected = performance.now()

    const era = await client.era()
    const call = () => client.callTool("echo", echoArgs)
    for (let i = 0; i < workload.warmupCalls; i++) {
      const result = await call()
      if (i === 0) checkEcho(result, "ours (Promise)")
    }

    return await timedPhases({ start, connected, era, call, close: () => client.close() }, workload)
  } finally {
    await client.close()
  }
}

// -----------------------------------------------------------------------------
// The official SDK client (@modelcontextprotocol/client 2.x)
// -----------------------------------------------------------------------------

/**
 * What the benchmark uses of the SDK's `Client` (see `client-*.d.mts` in the package). The package's root
 * typings import `eventsource`, whose types resolve to `eventsource-parser`'s `.ts` sources under this repo's
 * `customConditions: ["source"]` and fail to compile; so the root entry is loaded untyped (a non-literal
 * specifier) and typed here. `/stdio` is typed by the SDK itself.
 */
interface OfficialClient {
  connect(transport: StdioClientTransport): Promise<void>
  listTools(): Promise<{ readonly tools: ReadonlyArray<{ readonly name: string }> }>
  callTool(params: { readonly name: string; readonly arguments?: Record<string, unknown> }): Promise<{
    readonly content?: ReadonlyArray<unknown>
  }>
  getProtocolEra(): "modern" | "legacy" | undefined
  close(): Promise<void>
}

interface OfficialClientModule {
  readonly Client: new(
    info: { readonly name: string; readonly version: string },
    options?: { readonly versionNegotiation?: { readonly mode: "auto" | "legacy" } }
  ) => OfficialClient
}

const OFFICIAL_CLIENT: string = "@modelcontextprotocol/client"
const { Client } = (await import(OFFICIAL_CLIENT)) as OfficialClientModule

/**
 * The SDK's stdio transport, unchanged. Being a subclass makes the SDK probe `server/discover` on this very
 * connection ("subclasses probe in place") instead of on a throwaway sibling process, so a run has one
 * server process, like ours.
 */
class InPlaceStdioClientTransport extends StdioClientTransport {}

/**
 * - `auto`: `versionNegotiation: { mode: "auto" }`, probing in place (one server process);
 * - `auto-sibling`: the same on the stock transport, which probes on a second, short-lived server process;
 * - `legacy`: the SDK's default (no negotiation, `initialize` only).
 */
export type OfficialMode = "auto" | "auto-sibling" | "legacy"

export const runOfficial = async (serverEra: ServerEra, mode: OfficialMode, workload: Workload): Promise<RunResult> => {
  const params: StdioServerParameters = { command: process.execPath, args: serverArgs(serverEra), stderr: "ignore" }
  const start = performance.now()
  const transport = mode === "auto-sibling" ? new StdioClientTransport(params) : new InPlaceStdioClientTransport(params)
  const client = new Client(
    { name: CLIENT_NAME, version: "0.0.0" },
    mode === "legacy" ? {} : { versionNegotiation: { mode: "auto" } }
  )
  try {
    await client.connect(transport)
    await client.listTools()
    const connected = performance.now()

    const era = client.getProtocolEra() ?? "unknown"
    const call = () => client.callTool({ name: "echo", arguments: echoArgs })
    for (let i = 0; i < workload.warmupCalls; i++) {
      const result = await call()
      if (i === 0) checkEcho(result, "official")
    }

    return await timedPhases({ start, connected, era, call, close: () => client.close() }, workload)
  } finally {
    await client.close()
  }
}
