/**
 * `McpConfig.inputReferencesOf`: which of VS Code's `inputs` an entry needs, so that a host asks for those alone.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpConfig } from "@mcp-effect/client/node"

describe("McpConfig.inputReferencesOf", () => {
  it("lists each ${input:ID} of an entry's strings once, in order; $${ is a literal and other references are not inputs", () => {
    const entry = {
      type: "stdio",
      command: "server",
      args: ["--token", "${input:token}", "$${input:literal}", "${HOME}", "${env:USER}", "${input:token}"],
      env: { REGION: "${input:region}", PLAIN: "x" },
      headers: { Authorization: "Bearer ${input:token}" }
    }
    assert.deepStrictEqual(McpConfig.inputReferencesOf(entry), ["token", "region"])
    assert.deepStrictEqual(McpConfig.inputReferencesOf({ command: "server", args: ["--plain"] }), [])
    assert.deepStrictEqual(McpConfig.inputReferencesOf("${input:alone}"), ["alone"])
    assert.deepStrictEqual(McpConfig.inputReferencesOf(undefined), [])
  })

  it("an entry nested without end is searched to a bounded depth, not to a stack overflow", () => {
    let deep: unknown = "${input:buried}"
    for (let i = 0; i < 100_000; i++) deep = { next: deep }
    assert.deepStrictEqual(McpConfig.inputReferencesOf({ command: "s", args: ["${input:near}"], deep }), ["near"])
  })
})
