/**
 * An MCP server built on Effect 4's own `effect/ai` `McpServer`: a second real peer for our client, next to the
 * one built on the official SDK (`official-server.ts`).
 *
 * What it serves, in the revisions it is given (legacy `2025-11-25`, modern `2026-07-28`, or both):
 *
 * - tools: `echo {text}` (the text back), `add {a, b}` (`structuredContent` `{ sum }`), `slow {steps, ms}`
 *   (one `notifications/progress` per step, against the caller's progress token, then `done`), and `stats`
 *   (how many `tools/list` requests it has served, as JSON text: what a cache test counts);
 * - a resource `effect://greeting` and a prompt `greet {name}`;
 * - cache hints (modern only; the legacy revision has none): `tools/list`, `resources/list` and
 *   `prompts/list` fresh for 60 s, private.
 *
 * `effect.ts` runs it over stdio or Streamable HTTP.
 */
import * as McpProtocol from "effect/ai/McpProtocol"
import * as McpSchema from "effect/ai/McpSchema"
import * as McpServer from "effect/ai/McpServer"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/** Which revisions the server serves: `both` (modern and legacy), `modern` or `legacy` only. */
export type Era = "both" | "modern" | "legacy"

export const SERVER_NAME = "effect-mcp-server"
export const SERVER_VERSION = "1.0.0"
export const INSTRUCTIONS = "Demo server built on Effect's McpServer"
export const GREETING_URI = "effect://greeting"
export const GREETING_TEXT = "Hello from Effect's McpServer"
/** How long a client may keep the lists (modern revision). */
export const LIST_TTL = "60 seconds"

export const protocolsOf = (era: Era) => {
  switch (era) {
    case "both":
      return [McpProtocol.v2026_07_28, McpProtocol.v2025_11_25] as const
    case "modern":
      return [McpProtocol.v2026_07_28] as const
    case "legacy":
      return [McpProtocol.v2025_11_25] as const
  }
}

export const cacheHints: McpServer.CacheHints = {
  tools: { ttl: LIST_TTL, cacheScope: "private" },
  resources: { ttl: LIST_TTL, cacheScope: "private" },
  prompts: { ttl: LIST_TTL, cacheScope: "private" }
}

const Echo = Tool.make("echo", {
  description: "Returns its text",
  parameters: Schema.Struct({ text: Schema.String }),
  success: Schema.String
})

const Add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ sum: Schema.Number })
})

const Slow = Tool.make("slow", {
  description: "Reports progress once per step, then answers",
  parameters: Schema.Struct({ steps: Schema.Number, ms: Schema.Number }),
  success: Schema.String,
  dependencies: [McpSchema.McpRequestContext]
})

const Stats = Tool.make("stats", {
  description: "How many tools/list requests this server has served",
  success: Schema.String
})

const Tools = Toolkit.make(Echo, Add, Slow, Stats)

/** What the server counts: the `tools/list` requests it answered. */
interface Counters {
  toolsList: number
}

const text = (value: string): ReadonlyArray<McpSchema.ContentBlock> => [{ type: "text", text: value }]

/** The tools' handlers; `slow` sends its progress through the server's notification client. */
const handlers = (counters: Counters) =>
  Tools.toLayer(Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    return Tools.of({
      echo: ({ text }) => Effect.succeed(text),
      add: ({ a, b }) => Effect.succeed({ sum: a + b }),
      slow: ({ ms, steps }) =>
        Effect.gen(function*() {
          const request = yield* McpSchema.McpRequestContext
          const token = request.requestMetadata?.["progressToken"]
          for (let step = 1; step <= steps; step++) {
            yield* Effect.sleep(ms / steps)
            if (typeof token === "string" || typeof token === "number") {
              yield* server.notifications["notifications/progress"]({
                progressToken: token,
                progress: step,
                total: steps,
                message: `step ${step}`
              })
            }
          }
          return "done"
        }),
      stats: () => Effect.sync(() => JSON.stringify({ toolsList: counters.toolsList }))
    })
  }))

/**
 * Counts `tools/list` requests. On a list request a visibility check runs once per registration, so the count
 * goes up on the check of one tool (`echo`): once per request.
 */
const countLists = (counters: Counters) =>
  McpServer.visibility(({ method, target }) =>
    Effect.sync(() => {
      if (method === "tools/list" && target === Echo.name) counters.toolsList++
      return true
    }), { global: true })

/** Everything the server registers: the tools (text content for the text tools), a resource, a prompt. */
export const registrations: Layer.Layer<never, never, McpServer.McpServer> = Layer.suspend(() => {
  const counters: Counters = { toolsList: 0 }
  return Layer.mergeAll(
    McpServer.toolkit(Tools, {
      content: { echo: text, slow: text, stats: text }
    }).pipe(Layer.provide(handlers(counters))),
    McpServer.resource({
      uri: GREETING_URI,
      name: "greeting",
      description: "A fixed greeting",
      mimeType: "text/plain",
      content: Effect.succeed(GREETING_TEXT)
    }),
    McpServer.prompt({
      name: "greet",
      description: "Greets someone",
      parameters: { name: Schema.String },
      content: ({ name }) => Effect.succeed(`Hello, ${name}!`)
    }),
    countLists(counters)
  )
})

/** The options every transport shares. */
export const serverOptions = (era: Era) => ({
  name: SERVER_NAME,
  version: SERVER_VERSION,
  instructions: INSTRUCTIONS,
  protocols: protocolsOf(era),
  cacheHints,
  registrations
})
