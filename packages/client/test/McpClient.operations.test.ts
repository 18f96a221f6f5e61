/**
 * `McpClient.operations` and `McpClient.wrapOperations` (issue 38, item 2): the list is the service's members,
 * and every wrapper built on it (the Promise client, the fleet's rate limit) wraps each operation of it.
 */
import { McpClient, McpPromise, type McpSkills, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Gate } from "../src/internal/fleet/rateLimit.js"
import { limitClient } from "../src/internal/fleet/rateLimit.js"

const kit = () => McpTestServer.make({ tools: [{ name: "echo", handler: () => Effect.succeed("hi") }] })

const skill: McpSkills.Skill = { uri: "skill://a/SKILL.md", name: "a", description: "a", frontmatter: {}, resources: [] }

/** Every member but the streams, asked once (typed by the list: a member added to it is asked here too). */
const everyOperation = (
  client: McpClient.Service
): { readonly [N in Exclude<McpClient.OperationName, "notifications" | "diagnostics">]: Effect.Effect<unknown, unknown, Scope.Scope> } => ({
  era: client.era,
  info: client.info,
  serverInfo: client.serverInfo,
  serverCapabilities: client.serverCapabilities,
  instructions: client.instructions,
  listTools: client.listTools(),
  callTool: client.callTool("echo"),
  listPrompts: client.listPrompts(),
  getPrompt: client.getPrompt("p"),
  listResources: client.listResources(),
  listResourceTemplates: client.listResourceTemplates(),
  readResource: client.readResource("file:///a"),
  complete: client.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "" }),
  listSkills: client.listSkills(),
  getSkill: client.getSkill(skill.uri),
  listSkillDirectory: client.listSkillDirectory(skill),
  readSkillFile: client.readSkillFile(skill, skill.uri),
  loadSkill: client.loadSkill(skill),
  request: client.request("ping"),
  notifyRootsChanged: client.notifyRootsChanged,
  listen: client.listen({}),
  close: client.close
})

describe("McpClient.operations", () => {
  it.effect("names every member of a real client, no more, no fewer", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      assert.deepStrictEqual(Object.keys(client).sort(), Object.keys(McpClient.operations).sort())
      assert.isTrue(Object.isFrozen(McpClient.operations))
      for (const [name, kind] of Object.entries(McpClient.operations)) {
        const member: unknown = Reflect.get(client, name)
        assert.strictEqual(typeof member === "function", kind === "call" || kind === "scoped", name)
      }
    }).pipe(Effect.provide(kit().layer())))

  it.effect("wrapOperations: wrap sees every operation but the streams, with its kind; the streams are the client's own", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const seen = new Map<string, string>()
      const wrapped = McpClient.wrapOperations(client, (effect, name, kind) => {
        seen.set(name, kind)
        return effect
      })
      everyOperation(wrapped)
      const expected = Object.entries(McpClient.operations).filter(([, kind]) => kind !== "stream")
      assert.deepStrictEqual([...seen].sort(), expected.sort())
      assert.strictEqual(wrapped.notifications, client.notifications)
      assert.strictEqual(wrapped.diagnostics, client.diagnostics)
      // What wrap gives is what runs.
      const ran: Array<string> = []
      const logged = McpClient.wrapOperations(client, (effect, name) => Effect.tap(effect, () => Effect.sync(() => ran.push(name))))
      assert.deepStrictEqual((yield* logged.listTools()).map((tool) => tool.name), ["echo"])
      assert.strictEqual((yield* logged.callTool("echo")).isError, undefined)
      assert.strictEqual(yield* logged.era, "modern")
      assert.deepStrictEqual(ran, ["listTools", "callTool", "era"])
    }).pipe(Effect.provide(kit().layer())))

  it.effect("the fleet's rate limit takes a turn for each call and scoped call of the list, none for the effects", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      let turns = 0
      const gate: Gate = Object.assign(
        <A, E, R>(operation: Effect.Effect<A, E, R>) => {
          turns++
          return operation
        },
        { held: Effect.succeed(false) }
      )
      everyOperation(limitClient(client, gate))
      const gated = Object.values(McpClient.operations).filter((kind) => kind === "call" || kind === "scoped")
      assert.strictEqual(turns, gated.length)
    }).pipe(Effect.provide(kit().layer())))

  it.live("the Promise client has a method for every effect and call of the list", () =>
    Effect.promise(async () => {
      const client = await McpPromise.fromLayer(kit().layer())
      try {
        for (const [name, kind] of Object.entries(McpClient.operations)) {
          if (kind === "stream") continue
          assert.strictEqual(typeof Reflect.get(client, name), "function", name)
        }
        assert.strictEqual(await client.era(), "modern")
        assert.deepStrictEqual((await client.listTools()).map((tool) => tool.name), ["echo"])
        assert.isUndefined(await client.notifyRootsChanged())
      } finally {
        await client.close()
      }
    }))
})
