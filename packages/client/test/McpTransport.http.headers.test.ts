import type { McpSchema } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import { encodeHeaderValue, invalidToolHeaders, paramHeaders } from "../src/internal/mcpHeaders.js"

const tool = (inputSchema: McpSchema.JsonObject): McpSchema.Tool => ({ name: "t", inputSchema })

describe("header value encoding (Mcp-Name, Mcp-Param-*)", () => {
  it("the spec's examples", () => {
    assert.strictEqual(encodeHeaderValue("us-west1"), "us-west1")
    assert.strictEqual(encodeHeaderValue("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=")
    assert.strictEqual(encodeHeaderValue(" padded "), "=?base64?IHBhZGRlZCA=?=")
    assert.strictEqual(encodeHeaderValue("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=")
    assert.strictEqual(encodeHeaderValue("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")
  })

  it("inner spaces and tabs are safe; surrounding ones, control characters and DEL are not", () => {
    assert.strictEqual(encodeHeaderValue("a b\tc"), "a b\tc")
    assert.strictEqual(encodeHeaderValue("file:///a/b.json?x=1"), "file:///a/b.json?x=1")
    assert.strictEqual(encodeHeaderValue("\tlead"), `=?base64?${btoa("\tlead")}?=`)
    assert.strictEqual(encodeHeaderValue("bell\u0007"), `=?base64?${btoa("bell\u0007")}?=`)
    assert.strictEqual(encodeHeaderValue("del\u007f"), `=?base64?${btoa("del\u007f")}?=`)
    assert.strictEqual(encodeHeaderValue("crlf\r\nX-Injected: 1"), `=?base64?${btoa("crlf\r\nX-Injected: 1")}?=`)
    // Only a value that both starts and ends like the sentinel is ambiguous.
    assert.strictEqual(encodeHeaderValue("=?base64?open"), "=?base64?open")
    assert.strictEqual(encodeHeaderValue(""), "=?base64??=")
  })
})

describe("x-mcp-header mirrors", () => {
  const schema = {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      count: { type: "integer", "x-mcp-header": "Count" },
      dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
      note: { type: "string", "x-mcp-header": "Note" },
      nested: { type: "object", properties: { tenant: { type: "string", "x-mcp-header": "Tenant" } } },
      query: { type: "string" }
    }
  }

  it("string as is, integer in decimal, boolean as true/false, nested through properties; null and absent omitted", () => {
    assert.deepStrictEqual(
      paramHeaders(tool(schema), {
        region: "us-west1",
        count: -7,
        dry: false,
        note: null,
        nested: { tenant: "Zürich" },
        query: "select 1"
      }),
      {
        "Mcp-Param-Region": "us-west1",
        "Mcp-Param-Count": "-7",
        "Mcp-Param-Dry-Run": "false",
        "Mcp-Param-Tenant": "=?base64?WsO8cmljaA==?="
      }
    )
    assert.deepStrictEqual(paramHeaders(tool(schema), { query: "x" }), {})
    assert.deepStrictEqual(paramHeaders(tool(schema), undefined), {})
    assert.deepStrictEqual(paramHeaders(tool({ type: "object" }), { region: "x" }), {})
  })

  it("values with no header form are left out", () => {
    assert.deepStrictEqual(paramHeaders(tool(schema), { region: { a: 1 }, count: 2 ** 60, dry: [true] }), {})
  })

  it("a valid schema has no reason", () => {
    assert.strictEqual(invalidToolHeaders(tool(schema)), undefined)
    assert.strictEqual(invalidToolHeaders(tool({ type: "object" })), undefined)
  })

  const invalid = (name: string, inputSchema: McpSchema.JsonObject, reason: RegExp) =>
    it(name, () => {
      const why = invalidToolHeaders(tool(inputSchema))
      assert.isDefined(why)
      assert.match(why ?? "", reason)
    })

  invalid("empty name", { type: "object", properties: { a: { type: "string", "x-mcp-header": "" } } }, /empty/)
  invalid("not a string", { type: "object", properties: { a: { type: "string", "x-mcp-header": 3 } } }, /not a string/)
  invalid("not a token", { type: "object", properties: { a: { type: "string", "x-mcp-header": "My Header" } } }, /token/)
  invalid("a delimiter", { type: "object", properties: { a: { type: "string", "x-mcp-header": "a:b" } } }, /token/)
  invalid(
    "control characters",
    { type: "object", properties: { a: { type: "string", "x-mcp-header": "A\r\nB" } } },
    /control/
  )
  invalid("number type", { type: "object", properties: { a: { type: "number", "x-mcp-header": "A" } } }, /number/)
  invalid("object type", { type: "object", properties: { a: { type: "object", "x-mcp-header": "A" } } }, /object/)
  invalid("no type", { type: "object", properties: { a: { "x-mcp-header": "A" } } }, /type null/)
  invalid(
    "type array",
    { type: "object", properties: { a: { type: ["string", "null"], "x-mcp-header": "A" } } },
    /string,null|\["string","null"\]/
  )
  invalid(
    "duplicate, case-insensitively",
    {
      type: "object",
      properties: {
        a: { type: "string", "x-mcp-header": "Tenant" },
        b: { type: "object", properties: { c: { type: "string", "x-mcp-header": "tenant" } } }
      }
    },
    /unique/
  )
  invalid(
    "under items",
    { type: "object", properties: { a: { type: "array", items: { type: "string", "x-mcp-header": "A" } } } },
    /reachable/
  )
  invalid(
    "under oneOf",
    { type: "object", oneOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] },
    /reachable/
  )
  invalid(
    "under if/then",
    { type: "object", if: { properties: {} }, then: { properties: { a: { type: "string", "x-mcp-header": "A" } } } },
    /reachable/
  )
  invalid(
    "in $defs (reached by $ref)",
    {
      type: "object",
      properties: { a: { $ref: "#/$defs/A" } },
      $defs: { A: { type: "string", "x-mcp-header": "A" } }
    },
    /reachable/
  )
  invalid(
    "under additionalProperties",
    { type: "object", additionalProperties: { type: "string", "x-mcp-header": "A" } },
    /reachable/
  )
  invalid("on the root", { type: "object", "x-mcp-header": "Root" }, /root/)

  it("an invalid tool still mirrors its well-formed annotations", () => {
    const mixed = {
      type: "object",
      properties: { a: { type: "string", "x-mcp-header": "A" }, b: { type: "number", "x-mcp-header": "B" } }
    }
    assert.isDefined(invalidToolHeaders(tool(mixed)))
    assert.deepStrictEqual(paramHeaders(tool(mixed), { a: "x", b: 1.5 }), { "Mcp-Param-A": "x", "Mcp-Param-B": "1.5" })
  })
})
