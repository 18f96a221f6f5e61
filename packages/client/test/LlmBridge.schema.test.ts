import { LlmBridge, ToolScheduler } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import { canonicalJson } from "../src/internal/llm/names.js"

/** How many objects deep `properties.d.properties.next.properties.next...` goes. */
const nestedDepth = (schema: unknown): number => {
  let depth = 0
  let node: unknown = schema
  for (;;) {
    if (typeof node !== "object" || node === null || !("properties" in node)) return depth
    const props: unknown = node.properties
    if (typeof props !== "object" || props === null) return depth
    node = "d" in props ? props.d : "next" in props ? props.next : undefined
    depth++
  }
}

const params = (schema: unknown, options?: LlmBridge.SchemaOptions) => LlmBridge.toParameters(schema, options)

describe("toParameters: references", () => {
  it("inlines $defs and definitions, and drops them with $schema", () => {
    const { notes, parameters } = params({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        a: { $ref: "#/$defs/A" },
        b: { $ref: "#/definitions/with~1slash" },
        c: { $ref: "#/$defs/A", description: "the A again" }
      },
      $defs: { A: { type: "string", minLength: 1 } },
      definitions: { "with/slash": { type: "integer" } }
    })
    assert.deepStrictEqual(parameters, {
      type: "object",
      properties: {
        a: { type: "string", minLength: 1 },
        b: { type: "integer" },
        c: { type: "string", minLength: 1, description: "the A again" }
      }
    })
    assert.deepStrictEqual(notes, [])
  })

  it("resolves $anchor and the root's own $id", () => {
    const { parameters } = params({
      $id: "https://example.com/schemas/tool.json",
      type: "object",
      properties: {
        a: { $ref: "#thing" },
        b: { $ref: "https://example.com/schemas/tool.json#/$defs/B" },
        c: { $ref: "tool.json#/$defs/B" }
      },
      $defs: { T: { $anchor: "thing", type: "boolean" }, B: { type: "number" } }
    })
    assert.deepStrictEqual(parameters["properties"], {
      a: { type: "boolean" },
      b: { type: "number" },
      c: { type: "number" }
    })
  })

  it("a $ref with constraints beside it becomes an allOf", () => {
    const { parameters } = params({
      type: "object",
      properties: { a: { $ref: "#/$defs/Base", required: ["x"] } },
      $defs: { Base: { type: "object", properties: { x: { type: "string" } } } }
    })
    assert.deepStrictEqual(parameters["properties"], {
      a: { allOf: [{ type: "object", properties: { x: { type: "string" } } }, { required: ["x"] }] }
    })
  })

  it("cuts a recursive reference after one level, with a note", () => {
    const { notes, parameters } = params({
      type: "object",
      properties: { tree: { $ref: "#/$defs/Node" } },
      $defs: {
        Node: {
          type: "object",
          properties: { value: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } }
        }
      }
    })
    assert.deepStrictEqual(parameters["properties"], {
      tree: {
        type: "object",
        properties: {
          value: { type: "string" },
          children: {
            type: "array",
            items: { description: "(recursive: a value shaped like the enclosing Node, not checked here)" }
          }
        }
      }
    })
    assert.deepStrictEqual(notes.map((n) => n.kind), ["recursive-ref"])
  })

  it("a root that refers to itself ('#') terminates", () => {
    const { notes, parameters } = params({
      type: "object",
      properties: { next: { $ref: "#" }, value: { type: "number" } }
    })
    assert.strictEqual(parameters["type"], "object")
    assert.deepStrictEqual(notes.map((n) => n.kind), ["recursive-ref"])
  })

  it("never fetches an external $ref: it becomes any value, and the description says so", () => {
    const schema = {
      type: "object",
      properties: {
        address: { $ref: "https://example.com/address.json", description: "where" },
        other: { $ref: "other.json#/defs/x" }
      },
      required: ["address"]
    }
    const { notes, parameters } = params(schema)
    assert.deepStrictEqual(parameters["properties"], {
      address: { description: "where (any value: its schema https://example.com/address.json is external and was not fetched)" },
      other: { description: "(any value: its schema other.json#/defs/x is external and was not fetched)" }
    })
    assert.deepStrictEqual(notes.map((n) => n.kind), ["external-ref", "external-ref"])
    const declared = LlmBridge.declareTool({ name: "ship", description: "Ship a parcel", inputSchema: schema }, "ship")
    assert.match(
      declared.declaration.function.description,
      /^Ship a parcel\n\nNote on the arguments: the external reference https:\/\/example\.com\/address\.json was not fetched/
    )
  })

  it("an unresolvable reference becomes any value", () => {
    const { notes, parameters } = params({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } })
    assert.deepStrictEqual(parameters["properties"], { a: { description: "(any value: #/$defs/missing could not be resolved)" } })
    assert.deepStrictEqual(notes.map((n) => n.kind), ["unresolved-ref"])
  })

  it("bounds the depth of nested references", () => {
    const defs: Record<string, unknown> = {}
    for (let i = 0; i < 40; i++) {
      defs[`D${i}`] = { type: "object", properties: { next: { $ref: `#/$defs/D${i + 1}` } } }
    }
    defs["D40"] = { type: "string" }
    const { notes, parameters } = params({ type: "object", properties: { d: { $ref: "#/$defs/D0" } }, $defs: defs }, {
      maxRefDepth: 5
    })
    assert.deepStrictEqual(notes.map((n) => n.kind), ["truncated"])
    assert.isTrue(JSON.stringify(parameters).includes("not checked: the schema nests too deeply"))
    assert.isFalse(JSON.stringify(parameters).includes("$ref"))
    assert.strictEqual(nestedDepth(parameters), 6)
  })

  it("bounds the size of an exponential expansion", () => {
    const defs: Record<string, unknown> = {}
    for (let i = 0; i < 30; i++) {
      defs[`D${i}`] = { type: "object", properties: { l: { $ref: `#/$defs/D${i + 1}` }, r: { $ref: `#/$defs/D${i + 1}` } } }
    }
    defs["D30"] = { type: "string" }
    const started = Date.now()
    const { notes, parameters } = params({ type: "object", properties: { d: { $ref: "#/$defs/D0" } }, $defs: defs }, {
      maxRefDepth: 64,
      maxNodes: 500
    })
    assert.isBelow(Date.now() - started, 1000)
    assert.isBelow(JSON.stringify(parameters).length, 200_000)
    assert.deepStrictEqual(notes.map((n) => n.kind), ["truncated"])
  })
})

describe("toParameters: the root", () => {
  it("always an object schema with properties", () => {
    assert.deepStrictEqual(params({}).parameters, { type: "object", properties: {} })
    assert.deepStrictEqual(params({ type: "object" }).parameters, { type: "object", properties: {} })
    assert.deepStrictEqual(params({ properties: { a: { type: "string" } } }).parameters, {
      type: "object",
      properties: { a: { type: "string" } }
    })
  })

  it("a root that is not an object becomes any object, with a note", () => {
    const { notes, parameters } = params({ type: "string" })
    assert.deepStrictEqual(parameters, { type: "object", properties: {} })
    assert.deepStrictEqual(notes.map((n) => n.kind), ["root"])
    assert.deepStrictEqual(params("nonsense").notes.map((n) => n.kind), ["root"])
  })

  it("merges a root allOf of objects", () => {
    const { parameters } = params({
      allOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { type: "object", properties: { b: { type: "number" } }, required: ["b"] }
      ]
    })
    assert.deepStrictEqual(parameters, {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      required: ["a", "b"]
    })
  })

  it("flattens a root anyOf of objects: every property offered, the common ones required", () => {
    const { notes, parameters } = params({
      anyOf: [
        { type: "object", properties: { id: { type: "string" }, name: { type: "string" } }, required: ["id", "name"] },
        { type: "object", properties: { id: { type: "string" }, email: { type: "string" } }, required: ["id"] }
      ]
    })
    assert.deepStrictEqual(parameters, {
      type: "object",
      properties: { id: { type: "string" }, name: { type: "string" }, email: { type: "string" } },
      required: ["id"]
    })
    assert.deepStrictEqual(notes.map((n) => n.kind), ["root"])
  })
})

const strictOf = (schema: unknown) => LlmBridge.toStrictParameters(params(schema).parameters)

describe("strict mode", () => {
  it("closes every object, requires every property, makes the optional ones nullable", () => {
    const outcome = strictOf({
      type: "object",
      properties: {
        query: { type: "string", description: "what to find" },
        limit: { type: "integer", minimum: 1, default: 10 },
        mode: { type: "string", enum: ["fast", "deep"] },
        filter: {
          type: "object",
          properties: { lang: { type: "string", minLength: 2 }, tags: { type: "array", items: { type: "string" } } },
          required: ["lang"]
        },
        choice: { oneOf: [{ type: "string" }, { type: "number" }] },
        fixed: { const: "x" }
      },
      required: ["query"]
    })
    assert.strictEqual(outcome._tag, "Strict")
    if (outcome._tag !== "Strict") return
    assert.deepStrictEqual(outcome.parameters, {
      type: "object",
      properties: {
        query: { type: "string", description: "what to find" },
        limit: { type: ["integer", "null"], minimum: 1, description: "(default: 10)" },
        mode: { type: ["string", "null"], enum: ["fast", "deep", null] },
        filter: {
          type: ["object", "null"],
          properties: {
            lang: { type: "string", description: "(minLength: 2)" },
            tags: { type: ["array", "null"], items: { type: "string" } }
          },
          required: ["lang", "tags"],
          additionalProperties: false
        },
        choice: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
        fixed: { type: ["string", "null"], enum: ["x", null] }
      },
      required: ["query", "limit", "mode", "filter", "choice", "fixed"],
      additionalProperties: false
    })
    assert.isTrue(outcome.notes.some((n) => n.message.includes("oneOf is offered as anyOf")))
  })

  it("a tool without arguments is strict", () => {
    assert.deepStrictEqual(strictOf({ type: "object", properties: {} }), {
      _tag: "Strict",
      parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
      notes: [{ kind: "strict", message: "the root declares no properties: the tool is offered without arguments" }]
    })
  })

  it("falls back, with reasons, where strict mode cannot express the schema", () => {
    const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
      [{ type: "object", properties: { tags: { type: "object", additionalProperties: { type: "string" } } } }, /a map/],
      [{ type: "object", properties: { any: {} } }, /accepts any value/],
      [{ type: "object", properties: { x: { $ref: "https://example.com/x.json" } } }, /accepts any value/],
      [{ type: "object", properties: { pair: { type: "array", prefixItems: [{ type: "string" }] } } }, /tuple/],
      [{ type: "object", properties: { list: { type: "array" } } }, /items have no schema/],
      [{ type: "object", properties: { blob: { type: "object" } } }, /no declared properties/],
      [{ type: "object", properties: {}, additionalProperties: true }, /a map/],
      [{ type: "object", patternProperties: { "^x": { type: "string" } } }, /patternProperties/]
    ]
    for (const [schema, reason] of cases) {
      const outcome = strictOf(schema)
      assert.strictEqual(outcome._tag, "NotStrict", JSON.stringify(schema))
      if (outcome._tag === "NotStrict") assert.match(outcome.reasons.join("; "), reason)
    }
  })

  it("falls back past the nesting limit", () => {
    let schema: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 12; i++) schema = { type: "object", properties: { x: schema }, required: ["x"] }
    const outcome = strictOf(schema)
    assert.strictEqual(outcome._tag, "NotStrict")
  })

  it("declareTool flags the fallback with strict: false and says why", () => {
    const tool = {
      name: "tag",
      description: "Tag things",
      inputSchema: { type: "object", properties: { labels: { type: "object", additionalProperties: { type: "string" } } } }
    }
    const declared = LlmBridge.declareTool(tool, "tag", { strict: true })
    assert.strictEqual(declared.strict, false)
    assert.strictEqual(declared.declaration.function.strict, false)
    assert.deepStrictEqual(declared.declaration.function.parameters, params(tool.inputSchema).parameters)
    assert.isTrue(declared.notes.some((n) => n.startsWith("strict mode is not possible")))
    const plain = LlmBridge.declareTool(tool, "tag")
    assert.isFalse("strict" in plain.declaration.function)
  })

  it("stripOptionalNulls removes the nulls strict mode sends for left-out properties only", () => {
    const parameters = params({
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: ["string", "null"] },
        c: { type: "string" },
        nested: { type: "object", properties: { d: { type: "number" } } },
        list: { type: "array", items: { type: "object", properties: { e: { type: "string" } } } }
      },
      required: ["c"]
    }).parameters
    assert.deepStrictEqual(
      LlmBridge.stripOptionalNulls({ a: null, b: null, c: null, nested: { d: null }, list: [{ e: null }, { e: "x" }] }, parameters),
      { b: null, c: null, nested: {}, list: [{}, { e: "x" }] }
    )
  })
})

describe("names", () => {
  it("keeps valid names, and sanitises the others with a stable hash", () => {
    assert.strictEqual(LlmBridge.sanitizeToolName("get-sum_2"), "get-sum_2")
    const dotted = LlmBridge.sanitizeToolName("files.read")
    assert.match(dotted, /^files_read_[0-9a-f]{8}$/)
    // Stable across runs and versions: FNV-1a (32 bits) of the original, checked independently.
    assert.strictEqual(dotted, "files_read_feef3122")
    assert.notStrictEqual(LlmBridge.sanitizeToolName("files/read"), dotted)
    const long = LlmBridge.sanitizeToolName("x".repeat(100))
    assert.strictEqual(long.length, 64)
    assert.notStrictEqual(LlmBridge.sanitizeToolName("x".repeat(101)), long)
    assert.match(LlmBridge.sanitizeToolName("données"), /^donn_es_[0-9a-f]{8}$/)
    for (const name of ["a b", "", "ü".repeat(80), "x".repeat(64)]) {
      assert.match(LlmBridge.sanitizeToolName(name), /^[a-zA-Z0-9_-]{1,64}$/)
    }
  })

  it("canonicalJson sorts keys at every level", () => {
    assert.strictEqual(
      canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } }),
      "{\"a\":{\"c\":null,\"d\":[{\"y\":2,\"z\":1}]},\"b\":1}"
    )
  })
})

describe("parseToolCall", () => {
  it("reads the OpenAI shape, and is lenient about empty arguments", () => {
    assert.deepStrictEqual(
      LlmBridge.parseToolCall({ id: "a", type: "function", function: { name: "t", arguments: "{\"x\":1}" } }, 0),
      { _tag: "Call", id: "a", name: "t", args: { x: 1 } }
    )
    assert.deepStrictEqual(LlmBridge.parseToolCall({ id: "a", function: { name: "t", arguments: "" } }, 0), {
      _tag: "Call",
      id: "a",
      name: "t",
      args: {}
    })
    assert.deepStrictEqual(LlmBridge.parseToolCall({ id: "a", function: { name: "t", arguments: { y: 2 } } }, 0), {
      _tag: "Call",
      id: "a",
      name: "t",
      args: { y: 2 }
    })
  })

  it("turns every malformation into an Invalid call with a reason", () => {
    const reasons = [
      [null, /Invalid tool call/],
      [{ type: "function", function: { name: "t", arguments: "{}" } }, /no id/],
      [{ id: "a", function: {} }, /names no function/],
      [{ id: "a", function: { name: "t", arguments: "null" } }, /got null/],
      [{ id: "a", function: { name: "t", arguments: "\"text\"" } }, /got a string/],
      [{ id: "a", function: { name: "t", arguments: 42 } }, /got a number/],
      [{ id: "a", function: { name: "t", arguments: "{" } }, /not valid JSON/]
    ] as const
    for (const [raw, reason] of reasons) {
      const parsed = LlmBridge.parseToolCall(raw, 3)
      assert.strictEqual(parsed._tag, "Invalid")
      if (parsed._tag === "Invalid") assert.match(parsed.reason, reason)
    }
  })
})

describe("renderToolResult", () => {
  const png = "iVBORw0KGgo".repeat(100)
  it("text as is, binary described, resources described", () => {
    const rendered = LlmBridge.renderToolResult({
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: png, mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain", description: "the A" },
        { type: "resource", resource: { uri: "file:///b.txt", mimeType: "text/plain", text: "B content" } },
        { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAAAAAA" } },
        { type: "unknown", originalType: "hologram", block: { type: "hologram" } }
      ]
    })
    assert.strictEqual(
      rendered,
      [
        "hello",
        "[image: image/png, 825 bytes; not shown]",
        "[audio: audio/wav, 3 bytes; not shown]",
        "[resource link: a.txt <file:///a.txt> (text/plain) - the A]",
        "[resource <file:///b.txt> (text/plain), 9 characters]\nB content",
        "[resource <file:///c.bin>, 6 bytes of binary data; not shown]",
        "[hologram content; not shown]"
      ].join("\n")
    )
    assert.isFalse(rendered.includes(png))
  })

  it("structured content as JSON, unless a text block already carries it", () => {
    assert.strictEqual(LlmBridge.renderToolResult({ content: [], structuredContent: { t: 21 } }), "{\"t\":21}")
    assert.strictEqual(
      LlmBridge.renderToolResult({ content: [{ type: "text", text: "{ \"t\": 21 }" }], structuredContent: { t: 21 } }),
      "{ \"t\": 21 }"
    )
    assert.strictEqual(
      LlmBridge.renderToolResult({ content: [{ type: "text", text: "Warm." }], structuredContent: { t: 21 } }),
      "Warm.\n{\"t\":21}"
    )
  })

  it("long text resources are cut; empty results say so", () => {
    const long = LlmBridge.renderToolResult(
      { content: [{ type: "resource", resource: { uri: "u", text: "x".repeat(50) } }] },
      { maxResourceText: 10 }
    )
    assert.match(long, /x{10}\n\[\.\.\. 40 more characters not shown\]$/)
    assert.strictEqual(LlmBridge.renderToolResult({ content: [] }), "(no output)")
    assert.match(LlmBridge.renderToolResult({ content: [], isError: true }), /error without saying/)
  })
})

describe("ToolScheduler.plan", () => {
  const safe = (name: string) => (name.startsWith("r") ? { readOnlyHint: true, idempotentHint: true } : undefined)
  const jobs = (...tools: ReadonlyArray<string | undefined>) =>
    tools.map((tool, i) => ({ tool, key: tool === undefined ? undefined : `${tool}-${i % 2}` }))

  it("widens only when every call is safe, and dedupes by key", () => {
    const plan = ToolScheduler.plan(jobs("r1", "r1", "r1", "r2"), safe)
    assert.strictEqual(plan.mode, "concurrent")
    assert.deepStrictEqual(plan.groups, [[0, 2], [1], [3]])
  })

  it("is serial for a write, an unknown name, no catalogue, concurrency 1", () => {
    assert.strictEqual(ToolScheduler.plan(jobs("r1", "w"), safe).mode, "serial")
    assert.strictEqual(ToolScheduler.plan(jobs("r1", undefined), safe).mode, "serial")
    assert.strictEqual(ToolScheduler.plan(jobs("r1", "r2"), undefined).mode, "serial")
    assert.strictEqual(ToolScheduler.plan(jobs("r1", "r2"), safe, 1).mode, "serial")
    assert.deepStrictEqual(ToolScheduler.plan(jobs("r1", "r1"), undefined).groups, [[0], [1]])
  })

  it("isConcurrencySafe needs both hints true", () => {
    assert.isTrue(ToolScheduler.isConcurrencySafe({ readOnlyHint: true, idempotentHint: true }))
    assert.isFalse(ToolScheduler.isConcurrencySafe({ readOnlyHint: true }))
    assert.isFalse(ToolScheduler.isConcurrencySafe({ readOnlyHint: true, idempotentHint: false }))
    assert.isFalse(ToolScheduler.isConcurrencySafe(undefined))
  })
})
