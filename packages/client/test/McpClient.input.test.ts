import { InputFulfiller, McpClient, McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import {
  askClient,
  legacyServer,
  metaOf,
  modernServer,
  ok,
  paramsOf,
  type Handler
} from "./fixtures/memoryServer.js"

const withClient = <A, E>(
  transport: Layer.Layer<McpTransport.McpTransport>,
  f: (client: McpClient.Service) => Effect.Effect<A, E>,
  options: McpClient.ClientOptions = {}
) => Effect.flatMap(McpClient.McpClient, f).pipe(Effect.provide(McpClient.layer(options).pipe(Layer.provide(transport))))

/**
 * Let the fake server's fibers run: it handles each message on a fiber of its own, which Effect 4 starts later
 * than Effect 3 did.
 */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

const confirmSchema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }

/** A modern tool that asks for a confirmation once, then answers with what it got. */
const modernConfirm: Handler = (params) => {
  const responses = paramsOf({ params })["inputResponses"]
  if (responses === undefined) {
    return ok({
      resultType: "input_required",
      inputRequests: {
        confirm: { method: "elicitation/create", params: { mode: "form", message: "Proceed?", requestedSchema: confirmSchema } }
      },
      requestState: "opaque \u00e9 state=="
    })
  }
  return ok({ resultType: "complete", content: [{ type: "text", text: JSON.stringify({ responses, state: params?.["requestState"] }) }] })
}

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) => {
  const block = result.content[0]
  return block !== undefined && "text" in block && typeof block.text === "string" ? block.text : ""
}

describe("multi round-trip requests (modern)", () => {
  it.effect("input_required is served through the hook and retried under a fresh id with requestState echoed", () =>
    Effect.gen(function*() {
      const server = modernServer({ "tools/call": modernConfirm })
      const seen: Array<unknown> = []
      const result = yield* withClient(server.layer, (client) => client.callTool("deploy", { env: "prod" }), {
        onElicit: (request) => {
          seen.push(request)
          return { action: "accept", content: { ok: true } }
        }
      })
      assert.deepStrictEqual(JSON.parse(textOf(result)), {
        responses: { confirm: { action: "accept", content: { ok: true } } },
        state: "opaque \u00e9 state=="
      })
      assert.deepStrictEqual(seen, [{
        method: "elicitation/create",
        params: { mode: "form", message: "Proceed?", requestedSchema: confirmSchema }
      }])
      const [first, retry] = server.requests("tools/call")
      assert.notStrictEqual(first?.["id"], retry?.["id"])
      assert.deepStrictEqual(paramsOf(retry)["arguments"], { env: "prod" })
      assert.strictEqual(paramsOf(first)["requestState"], undefined)
      // The full envelope again, with the capabilities the hook declares.
      assert.deepStrictEqual(metaOf(retry)["io.modelcontextprotocol/clientCapabilities"], { elicitation: { form: {} } })
    }))

  it.effect("with no hook the capabilities hold no elicitation, and a server that asks anyway is declined", () =>
    Effect.gen(function*() {
      const server = modernServer({ "tools/call": modernConfirm })
      const result = yield* withClient(server.layer, (client) => client.callTool("deploy"))
      assert.deepStrictEqual(JSON.parse(textOf(result)).responses, { confirm: { action: "decline" } })
      assert.deepStrictEqual(metaOf(server.requests("tools/call")[0])["io.modelcontextprotocol/clientCapabilities"], {})
    }))

  it.effect("a hook that throws, or answers against the schema, declines", () =>
    Effect.gen(function*() {
      for (const onElicit of [
        () => {
          throw new Error("user closed the window")
        },
        () => Promise.resolve({ action: "accept" as const, content: { ok: "yes" } }),
        () => Effect.fail("no")
      ]) {
        const server = modernServer({ "tools/call": modernConfirm })
        const result = yield* withClient(server.layer, (client) => client.callTool("deploy"), { onElicit })
        assert.deepStrictEqual(JSON.parse(textOf(result)).responses, { confirm: { action: "decline" } })
      }
    }))

  it.effect("state-only rounds are retried at once; several rounds end in the final result", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/call": (params) => {
          const round = Number(params?.["requestState"] ?? 0)
          return round < 3
            ? ok({ resultType: "input_required", requestState: String(round + 1) })
            : ok({ content: [{ type: "text", text: `after ${round}` }] })
        }
      })
      const result = yield* withClient(server.layer, (client) => client.callTool("shed"))
      assert.strictEqual(textOf(result), "after 3")
      assert.strictEqual(server.requests("tools/call").length, 4)
      assert.isFalse(server.requests("tools/call").some((m) => "inputResponses" in paramsOf(m)))
    }))

  it.effect("a server that never stops asking ends in McpInputLoopExceededError after maxInputRounds retries", () =>
    Effect.gen(function*() {
      const server = modernServer({ "tools/call": () => ok({ resultType: "input_required", requestState: "again" }) })
      const error = yield* withClient(server.layer, (client) => client.callTool("forever").pipe(Effect.flip), {
        maxInputRounds: 3
      })
      assert.strictEqual(error._tag, "McpInputLoopExceededError")
      if (error._tag === "McpInputLoopExceededError") {
        assert.strictEqual(error.rounds, 3)
        assert.strictEqual(error.method, "tools/call")
      }
      assert.strictEqual(server.requests("tools/call").length, 4)
    }))

  it.effect("independent input requests are fulfilled together, keyed like the requests", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/call": (params) =>
          params?.["inputResponses"] === undefined
            ? ok({
              resultType: "input_required",
              inputRequests: {
                e: { method: "elicitation/create", params: { message: "name?", requestedSchema: { type: "object", properties: { n: { type: "string" } } } } },
                r: { method: "roots/list" },
                s: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } }
              }
            })
            : ok({ content: [{ type: "text", text: JSON.stringify(params["inputResponses"]) }] })
      })
      const result = yield* withClient(server.layer, (client) => client.callTool("all"), {
        onElicit: () => Effect.succeed({ action: "accept", content: { n: "Ada" } }),
        onListRoots: async () => ({ roots: [{ uri: "file:///srv", name: "srv" }] }),
        onSample: () => ({ role: "assistant", content: { type: "text", text: "hi" }, model: "m" })
      })
      assert.deepStrictEqual(JSON.parse(textOf(result)), {
        e: { action: "accept", content: { n: "Ada" } },
        r: { roots: [{ uri: "file:///srv", name: "srv" }] },
        s: { role: "assistant", content: { type: "text", text: "hi" }, model: "m" }
      })
      assert.deepStrictEqual(metaOf(server.requests("tools/call")[0])["io.modelcontextprotocol/clientCapabilities"], {
        elicitation: { form: {} },
        sampling: {},
        roots: {}
      })
    }))

  it.effect("a refused sampling request abandons the call (the protocol has no refusal to send)", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/call": () =>
          ok({ resultType: "input_required", inputRequests: { s: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } } } })
      })
      const error = yield* withClient(server.layer, (client) => client.callTool("sample").pipe(Effect.flip))
      assert.strictEqual(error._tag, "McpInputRefusedError")
      assert.strictEqual(server.requests("tools/call").length, 1)
    }))

  it.effect("readResource and getPrompt are multi round-trip too", () =>
    Effect.gen(function*() {
      const ask = (final: unknown): Handler => (params) =>
        params?.["requestState"] === undefined
          ? ok({ resultType: "input_required", requestState: "s" })
          : ok(final)
      const server = modernServer({
        "resources/read": ask({ contents: [{ uri: "test://x", text: "x" }], ttlMs: 60_000 }),
        "prompts/get": ask({ messages: [{ role: "user", content: { type: "text", text: "hello" } }] })
      })
      const [read, prompt] = yield* withClient(server.layer, (client) =>
        Effect.all([client.readResource("test://x"), client.getPrompt("p", { a: "b" })]))
      assert.deepStrictEqual(read.contents, [{ uri: "test://x", text: "x" }])
      assert.strictEqual(prompt.messages.length, 1)
    }))
})

describe("server-to-client requests (legacy)", () => {
  const answer = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) => JSON.parse(textOf(result))

  it.effect("the same hooks answer them, and initialize declares exactly the hooks set", () =>
    Effect.gen(function*() {
      const server = legacyServer({
        "tools/call": askClient("elicitation/create", { message: "ok?", requestedSchema: confirmSchema })
      })
      const result = yield* withClient(server.layer, (client) => client.callTool("ask"), {
        onElicit: () => ({ action: "accept", content: { ok: false } }),
        onListRoots: () => ({ roots: [] })
      })
      assert.deepStrictEqual(answer(result), { result: { action: "accept", content: { ok: false } } })
      assert.deepStrictEqual(paramsOf(server.requests("initialize")[0])["capabilities"], {
        elicitation: { form: {} },
        roots: { listChanged: true }
      })
    }))

  it.effect("undeclared capabilities get -32601 without calling anything; ping gets {}", () =>
    Effect.gen(function*() {
      for (const method of ["roots/list", "sampling/createMessage", "elicitation/create"]) {
        const server = legacyServer({ "tools/call": askClient(method, {}) })
        const result = yield* withClient(server.layer, (client) => client.callTool("ask"))
        assert.strictEqual(answer(result).error.code, -32601)
      }
      const pinged = legacyServer({ "tools/call": askClient("ping") })
      const pong = yield* withClient(pinged.layer, (client) => client.callTool("ask"))
      assert.deepStrictEqual(answer(pong), { result: {} })
    }))

  it.effect("a failing sampling hook answers -1 'User rejected sampling request'; an undeclared mode -32602", () =>
    Effect.gen(function*() {
      const sampling = legacyServer({ "tools/call": askClient("sampling/createMessage", { messages: [], maxTokens: 1 }) })
      const rejected = yield* withClient(sampling.layer, (client) => client.callTool("ask"), {
        onSample: () => Promise.reject(new Error("no model"))
      })
      assert.deepStrictEqual(answer(rejected), { error: { code: -1, message: "User rejected sampling request" } })
      const url = legacyServer({
        "tools/call": askClient("elicitation/create", { mode: "url", message: "go", url: "https://x", elicitationId: "e1" })
      })
      const refused = yield* withClient(url.layer, (client) => client.callTool("ask"), { onElicit: () => ({ action: "accept" }) })
      assert.strictEqual(answer(refused).error.code, -32602)
    }))

  it.effect("notifyRootsChanged announces roots changes to a legacy server that was told listChanged", () =>
    Effect.gen(function*() {
      const server = legacyServer()
      yield* withClient(server.layer, (client) => client.notifyRootsChanged, { onListRoots: () => ({ roots: [] }) })
      yield* settle
      assert.isTrue(server.received.some((m) => m["method"] === "notifications/roots/list_changed"))
    }))
})

describe("elicitation answers are checked against requestedSchema", () => {
  it("reports every problem", () => {
    const schema = {
      type: "object",
      properties: {
        name: { type: "string", minLength: 2 },
        age: { type: "integer", minimum: 0 },
        color: { type: "string", enum: ["red", "blue"] },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        email: { type: "string", format: "email" }
      },
      required: ["name"]
    }
    assert.deepStrictEqual(InputFulfiller.validateElicitContent(schema, { name: "Ada", age: 3, color: "red", tags: ["a"], email: "a@b.c" }), [])
    assert.strictEqual(
      InputFulfiller.validateElicitContent(schema, { age: 1.5, color: "green", tags: ["z"], email: "nope", extra: 1 }).length,
      6
    )
  })
})
