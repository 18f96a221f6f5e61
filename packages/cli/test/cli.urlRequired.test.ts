/**
 * The CLI's `-32042` retry (`elicitation/urlRequired.ts`) covers every call of `McpClient.operations`, not a
 * list of its own: a raw request and a skills call refused with `-32042` are sent again once the link is done.
 */
import { McpClient, McpProtocolError, McpSchema, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Completions from "../src/internal/elicitation/completions.js"
import type { Interaction } from "../src/internal/elicitation/url.js"
import { retryingClient } from "../src/internal/elicitation/urlRequired.js"
import * as Status from "../src/internal/terminal/statusLine.js"

const urlRequired = (method: string, elicitationId: string) =>
  new McpProtocolError({
    method,
    code: McpSchema.ErrorCode.UrlElicitationRequired,
    message: "sign in first",
    data: { elicitations: [{ mode: "url", url: "https://example.com/consent", elicitationId, message: "consent" }] }
  })

/** Not at a terminal: the link is printed, the completion awaited up to `timeout` seconds. */
const interaction = (): Interaction => {
  const status = Status.make()
  return { terminal: undefined, status, completions: Completions.make(status), timeout: 5 }
}

describe("the -32042 retry", () => {
  it.effect("a raw request and a skills call refused with -32042 are sent again once the server says the link is done", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const asked = new Map<string, number>()
      const once = <A, E>(method: string, id: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E | McpProtocolError> =>
        Effect.suspend((): Effect.Effect<A, E | McpProtocolError> => {
          const count = (asked.get(method) ?? 0) + 1
          asked.set(method, count)
          return count === 1 ? Effect.fail(urlRequired(method, id)) : effect
        })
      const refusing: McpClient.Service = {
        ...client,
        request: (method, params, options) => once("request", "e1", client.request(method, params, options)),
        listSkills: (options) => once("listSkills", "e2", client.listSkills(options))
      }
      const asks = interaction()
      // Completions that come before the command waits for them are remembered.
      yield* asks.completions.complete("e1")
      yield* asks.completions.complete("e2")
      const retrying = retryingClient(refusing, asks)
      assert.deepStrictEqual(yield* retrying.request("ping"), {})
      assert.deepStrictEqual(yield* retrying.listSkills(), [])
      assert.deepStrictEqual([...asked], [["request", 2], ["listSkills", 2]])
    }).pipe(Effect.provide(McpTestServer.make({}).layer())))
})
