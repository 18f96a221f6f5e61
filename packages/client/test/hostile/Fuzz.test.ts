/**
 * Property-based fuzzing of what arrives from a server, with fast-check: random sequences of frames, valid and
 * invalid, in both eras, over the memory transport, while random calls run concurrently. Whatever the server
 * sends, every call settles (a result or a tagged `McpClientError`; never a defect, never an interruption,
 * never a hang), on the TestClock.
 *
 * `npm test` makes 60 runs (a few seconds); `MCP_FUZZ_RUNS=5000 npx vitest run packages/client/test/hostile/Fuzz.test.ts`
 * makes a longer run, `MCP_FUZZ_SEED` replays one.
 */
import { McpClient, McpError, McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { TestClock } from "effect/testing"
import fc from "fast-check"

type Json = unknown

/** One thing the server does in answer to a request. */
type Action =
  | { readonly kind: "result"; readonly value: Json }
  | { readonly kind: "toolResult"; readonly text: string }
  | { readonly kind: "error"; readonly code: number; readonly message: string; readonly data?: Json }
  | { readonly kind: "wrongId"; readonly offset: number }
  | { readonly kind: "duplicate" }
  | { readonly kind: "raw"; readonly text: string }
  | { readonly kind: "json"; readonly value: Json }
  | { readonly kind: "notification"; readonly method: string; readonly params: Json }
  | { readonly kind: "serverRequest"; readonly method: string; readonly params: Json; readonly id: Json }
  | { readonly kind: "inputRequired"; readonly requests: Json; readonly state: Json }
  | { readonly kind: "batch"; readonly values: ReadonlyArray<Json> }
  | { readonly kind: "die" }
  | { readonly kind: "silent" }

type Reaction = ReadonlyArray<Action>

type Call =
  | { readonly op: "callTool"; readonly name: string; readonly args: Record<string, Json> | undefined }
  | { readonly op: "listTools" }
  | { readonly op: "listResources" }
  | { readonly op: "readResource"; readonly uri: string }
  | { readonly op: "getPrompt"; readonly name: string }
  | { readonly op: "complete" }
  | { readonly op: "request"; readonly method: string; readonly params: Record<string, Json> | undefined }

interface Scenario {
  readonly era: "modern" | "legacy"
  readonly handshake: "clean" | "noisy" | "silentProbe"
  readonly reactions: ReadonlyArray<Reaction>
  readonly calls: ReadonlyArray<Call>
}

const METHODS = [
  "notifications/progress",
  "notifications/message",
  "notifications/cancelled",
  "notifications/tools/list_changed",
  "notifications/resources/updated",
  "notifications/resources/list_changed",
  "notifications/subscriptions/acknowledged",
  "notifications/whatever"
]
const SERVER_METHODS = ["sampling/createMessage", "elicitation/create", "roots/list", "ping", "no/such/method"]

const json = fc.jsonValue({ maxDepth: 3 })
const object = fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 4 })
const inputRequest = fc.record({ method: fc.constantFrom(...SERVER_METHODS), params: fc.oneof(object, json) })

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("toolResult" as const), text: fc.string({ maxLength: 20 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("result" as const), value: json }) },
  {
    weight: 2,
    arbitrary: fc.record(
      { kind: fc.constant("error" as const), code: fc.integer(), message: fc.string(), data: json },
      { requiredKeys: ["kind", "code", "message"] }
    )
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("wrongId" as const), offset: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("duplicate" as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("raw" as const), text: fc.string({ unit: "binary", maxLength: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("json" as const), value: json }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("notification" as const), method: fc.constantFrom(...METHODS), params: fc.oneof(object, json) })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("serverRequest" as const),
      method: fc.constantFrom(...SERVER_METHODS),
      params: fc.oneof(object, json),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), json)
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("inputRequired" as const),
      requests: fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), inputRequest, { maxKeys: 3 }), json),
      state: fc.oneof(fc.string({ maxLength: 6 }), json)
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("batch" as const), values: fc.array(json, { maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("die" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("silent" as const) }) }
)

const call: fc.Arbitrary<Call> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("callTool" as const),
      name: fc.oneof(fc.constant("echo"), fc.string({ maxLength: 8 })),
      args: fc.option(object, { nil: undefined })
    })
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("listTools" as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("listResources" as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("readResource" as const), uri: fc.string({ maxLength: 10 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("getPrompt" as const), name: fc.string({ maxLength: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("complete" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("request" as const),
      method: fc.string({ maxLength: 12 }),
      params: fc.option(object, { nil: undefined })
    })
  }
)

const scenario: fc.Arbitrary<Scenario> = fc.record({
  era: fc.constantFrom("modern" as const, "legacy" as const),
  handshake: fc.constantFrom("clean" as const, "noisy" as const, "silentProbe" as const),
  reactions: fc.array(fc.array(action, { minLength: 1, maxLength: 4 }), { maxLength: 12 }),
  calls: fc.array(call, { minLength: 1, maxLength: 6 })
})

const DISCOVER = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: { listChanged: true }, resources: {}, prompts: {}, completions: {}, logging: {} },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "fuzz", version: "0" } }
}
const INITIALIZE = {
  protocolVersion: "2025-11-25",
  capabilities: { tools: { listChanged: true }, resources: { subscribe: true }, prompts: {}, logging: {} },
  serverInfo: { name: "fuzz-legacy", version: "0" }
}

/** The memory server that plays a scenario: a clean or noisy handshake, then one reaction per request. */
const serverOf = (scenario: Scenario): McpTransport.MemoryServer => {
  let next = 0
  const modern = scenario.era === "modern"
  return {
    onMessage: (message, peer) =>
      Effect.gen(function*() {
        const id = message["id"]
        const method = message["method"]
        if (typeof method !== "string" || id === undefined) return // notifications and our replies
        const reply = (body: Record<string, Json>) => peer.send({ jsonrpc: "2.0", id, ...body })
        if (scenario.handshake === "noisy") yield* peer.send("{not json")
        if (method === "server/discover") {
          if (scenario.handshake === "silentProbe") return
          return yield* modern ? reply({ result: DISCOVER }) : reply({ error: { code: -32601, message: "Method not found" } })
        }
        if (method === "initialize") {
          return yield* modern
            ? reply({ error: { code: -32601, message: "Method not found" } })
            : reply({ result: INITIALIZE })
        }
        const reaction = scenario.reactions[next++ % Math.max(1, scenario.reactions.length)] ??
          [{ kind: "toolResult", text: "default" }]
        for (const step of reaction) {
          switch (step.kind) {
            case "toolResult":
              yield* reply({
                result: modern
                  ? { resultType: "complete", content: [{ type: "text", text: step.text }] }
                  : { content: [{ type: "text", text: step.text }] }
              })
              break
            case "result":
              yield* reply({ result: step.value })
              break
            case "error":
              yield* reply({ error: { code: step.code, message: step.message, ...(step.data === undefined ? {} : { data: step.data }) } })
              break
            case "wrongId":
              yield* peer.send({ jsonrpc: "2.0", id: typeof id === "number" ? id + step.offset : `${String(id)}x`, result: {} })
              break
            case "duplicate":
              yield* reply({ result: { content: [] } })
              yield* reply({ result: { content: [] } })
              break
            case "raw":
              yield* peer.send(step.text)
              break
            case "json":
              yield* peer.send(JSON.stringify(step.value))
              break
            case "notification":
              yield* peer.send({ jsonrpc: "2.0", method: step.method, params: step.params })
              break
            case "serverRequest":
              yield* peer.send({ jsonrpc: "2.0", id: step.id, method: step.method, params: step.params })
              break
            case "inputRequired":
              yield* reply({ result: { resultType: "input_required", inputRequests: step.requests, requestState: step.state } })
              break
            case "batch":
              yield* peer.send(JSON.stringify(step.values))
              break
            case "die":
              yield* peer.die("fuzz: died")
              break
            case "silent":
              break
          }
        }
      })
  }
}

const HOOKS: McpClient.ClientOptions = {
  onSample: () => ({ role: "assistant", content: { type: "text", text: "ok" }, model: "fuzz" }),
  onElicit: (request) => {
    if (JSON.stringify(request.params).length % 2 === 0) throw new Error("hook refuses")
    return { action: "decline" }
  },
  onListRoots: () => Promise.resolve({ roots: [{ uri: "file:///tmp" }] }),
  onLog: () => undefined,
  onProgress: () => undefined
}

const run = (client: McpClient.Service, c: Call): Effect.Effect<unknown, unknown> => {
  switch (c.op) {
    case "callTool":
      return client.callTool(c.name, c.args as never)
    case "listTools":
      return client.listTools()
    case "listResources":
      return client.listResources()
    case "readResource":
      return client.readResource(c.uri)
    case "getPrompt":
      return client.getPrompt(c.name)
    case "complete":
      return client.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "b" })
    case "request":
      return client.request(c.method, c.params as never)
  }
}

/** Why an exit is not acceptable, or undefined: a success or a tagged McpClientError, nothing else. */
const unacceptable = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const cause = exit.cause
  if (Cause.hasDies(cause)) return `defect: ${Cause.pretty(cause)}`
  // A failure may come with the interruption of sibling work it cut short (e.g. input requests served in
  // parallel): what the caller sees is the failure.
  const failure = Cause.findErrorOption(cause)
  if (Option.isNone(failure)) return `no failure (interrupted?): ${Cause.pretty(cause)}`
  return McpError.isMcpClientError(failure.value) ? undefined : `untagged failure: ${String(failure.value)}`
}

const play = (s: Scenario) =>
  Effect.gen(function*() {
    const layer = McpClient.layer({ ...HOOKS, requestTimeout: "1 second", probeTimeout: "500 millis" }).pipe(
      Layer.provide(McpTransport.layerMemory(serverOf(s)))
    )
    const context = yield* Layer.build(layer)
    const client = Context.get(context, McpClient.McpClient)
    const fibers = yield* Effect.forEach(s.calls, (c) => Effect.forkChild(Effect.exit(run(client, c))))
    // Ten minutes of TestClock time, a second at a time: every timeout in play has passed many times over.
    for (let tick = 0; tick < 600 && !(yield* allDone(fibers)); tick++) yield* TestClock.adjust("1 second")
    const problems: Array<string> = []
    for (const [index, fiber] of fibers.entries()) {
      const polled = fiber.pollUnsafe()
      if (polled === undefined) {
        problems.push(`call ${index} (${s.calls[index]?.op}) never settled`)
        continue
      }
      const exit = Exit.isSuccess(polled) ? polled.value : Exit.failCause(polled.cause)
      const outcome = Exit.isSuccess(exit)
        ? "success"
        : Option.match(Cause.findErrorOption(exit.cause), { onNone: () => "other", onSome: tagOf })
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
      const problem = unacceptable(exit)
      if (problem !== undefined) problems.push(`call ${index} (${s.calls[index]?.op}): ${problem}`)
    }
    yield* Effect.forEach(fibers, Fiber.interrupt, { discard: true })
    return problems
  }).pipe(Effect.scoped, Effect.provide(TestClock.layer()))

/** What the calls of every run ended with, so the test can show it exercised both outcomes. */
const outcomes = new Map<string, number>()
const tagOf = (error: unknown) =>
  typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : "untagged"

const allDone = (fibers: ReadonlyArray<Fiber.Fiber<unknown>>) =>
  Effect.sync(() => fibers.every((fiber) => fiber.pollUnsafe() !== undefined))

const runs = Number(process.env["MCP_FUZZ_RUNS"] ?? "60")
const seed = process.env["MCP_FUZZ_SEED"] === undefined ? undefined : Number(process.env["MCP_FUZZ_SEED"])

describe("fuzzing what a server sends (fast-check)", () => {
  it(`every call settles with a result or a tagged error, whatever the frames (${runs} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const problems = await Effect.runPromise(play(s))
        assert.deepStrictEqual(problems, [])
      }),
      { numRuns: runs, ...(seed === undefined ? {} : { seed }) }
    )
    // Not vacuous: calls succeeded, and failed in several tagged ways.
    assert.isAbove(outcomes.get("success") ?? 0, 0, JSON.stringify([...outcomes]))
    assert.isAtLeast([...outcomes.keys()].filter((key) => key.startsWith("Mcp")).length, 3, JSON.stringify([...outcomes]))
    if (process.env["MCP_FUZZ_RUNS"] !== undefined) console.log("fuzz outcomes", Object.fromEntries(outcomes))
  }, 120_000)
})
