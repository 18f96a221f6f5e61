/**
 * The command's pure parts: splitting `--stdio` like a shell, coercing `key=value` by the input schema, and
 * mapping `--log-level` to the level asked of the server.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { homedir } from "node:os"
import { join } from "node:path"
import { authOptions, checkPort, tokenFile } from "../src/internal/session/auth.js"
import { browserCommand } from "../src/internal/browser.js"
import { coerceValue, toolArguments } from "../src/internal/commands/arguments.js"
import { mcpLevelOf } from "../src/internal/session/connection.js"
import { bounded, DEEPER, json, visible } from "../src/internal/terminal/sanitize.js"
import { splitCommand } from "../src/internal/session/shell.js"
import { clip, fitWidths, MAX_FIELD, MAX_ROWS, MAX_TABLE, table, wrap } from "../src/internal/terminal/print.js"

describe("splitCommand", () => {
  it("whitespace, quotes and escapes", () => {
    assert.deepStrictEqual(splitCommand("node  server.js --port 1"), ["node", "server.js", "--port", "1"])
    assert.deepStrictEqual(splitCommand(`npx -y 'a b' "c \\"d\\"" e\\ f ''`), ["npx", "-y", "a b", "c \"d\"", "e f", ""])
    assert.deepStrictEqual(splitCommand("   "), [])
    assert.strictEqual(splitCommand("node 'open"), "unterminated ' quote")
  })
})

describe("coercion by the input schema", () => {
  it("each type, unions, and properties the schema does not describe", () => {
    assert.deepStrictEqual(coerceValue("42", { type: "integer" }), { value: 42 })
    assert.strictEqual(coerceValue("4.2", { type: "integer" }), "expected integer, got \"4.2\"")
    assert.deepStrictEqual(coerceValue("4.2", { type: "number" }), { value: 4.2 })
    assert.strictEqual(coerceValue("", { type: "number" }), "expected number, got \"\"")
    assert.deepStrictEqual(coerceValue("true", { type: "boolean" }), { value: true })
    assert.strictEqual(coerceValue("yes", { type: "boolean" }), "expected boolean, got \"yes\"")
    assert.deepStrictEqual(coerceValue("007", { type: "string" }), { value: "007" })
    assert.deepStrictEqual(coerceValue("[1,2]", { type: "array" }), { value: [1, 2] })
    assert.strictEqual(coerceValue("{}", { type: "array" }), "expected array, got \"{}\"")
    assert.deepStrictEqual(coerceValue("{\"a\":1}", { type: "object" }), { value: { a: 1 } })
    assert.deepStrictEqual(coerceValue("null", { type: ["integer", "null"] }), { value: null })
    assert.deepStrictEqual(coerceValue("3", { anyOf: [{ type: "integer" }, { type: "string" }] }), { value: "3" })
    assert.deepStrictEqual(coerceValue("3", undefined), { value: 3 })
    assert.deepStrictEqual(coerceValue("hello", {}), { value: "hello" })
  })

  it.effect("--args is the base, key=value pairs go over it; errors name the argument", () =>
    Effect.gen(function*() {
      const schema = { type: "object", properties: { a: { type: "number" }, s: { type: "string" } } }
      assert.deepStrictEqual(yield* toolArguments(schema, ["a=2", "s=x=y"], "{\"a\":1,\"b\":true}"), { a: 2, b: true, s: "x=y" })
      assert.strictEqual((yield* Effect.flip(toolArguments(schema, ["a=z"], undefined))).message, "argument a: expected number, got \"z\"")
      assert.strictEqual((yield* Effect.flip(toolArguments(schema, ["novalue"], undefined))).message, "expected key=value, got \"novalue\"")
      assert.strictEqual((yield* Effect.flip(toolArguments(schema, [], "[1]"))).message, "--args must be a JSON object")
    }))
})

describe("--log-level", () => {
  it("maps effect/cli's levels to MCP levels; none (the default) asks for nothing", () => {
    assert.strictEqual(mcpLevelOf("None"), undefined)
    assert.strictEqual(mcpLevelOf("All"), "debug")
    assert.strictEqual(mcpLevelOf("Debug"), "debug")
    assert.strictEqual(mcpLevelOf("Info"), "info")
    assert.strictEqual(mcpLevelOf("Warn"), "warning")
    assert.strictEqual(mcpLevelOf("Fatal"), "critical")
  })
})

describe("sign-in settings", () => {
  it("the token file follows XDG_CONFIG_HOME, else ~/.config", () => {
    assert.strictEqual(tokenFile({ XDG_CONFIG_HOME: "/xdg" }), "/xdg/mcp-effect/tokens.json")
    assert.strictEqual(tokenFile({ XDG_CONFIG_HOME: "" }), join(homedir(), ".config", "mcp-effect", "tokens.json"))
    assert.strictEqual(tokenFile({}), join(homedir(), ".config", "mcp-effect", "tokens.json"))
  })

  it("the browser: $BROWSER (none for none), else the platform's opener", () => {
    const url = "http://127.0.0.1:1/auth?x=1"
    assert.deepStrictEqual(browserCommand(url, { BROWSER: "firefox" }, "linux"), ["firefox", url])
    assert.strictEqual(browserCommand(url, { BROWSER: "none" }, "linux"), undefined)
    assert.deepStrictEqual(browserCommand(url, {}, "linux"), ["xdg-open", url])
    assert.deepStrictEqual(browserCommand(url, {}, "darwin"), ["open", url])
    assert.deepStrictEqual(browserCommand(url, {}, "win32"), ["cmd", "/c", "start", "", url])
  })

  it("the callback port is checked; the redirect URL is fixed by it", () => {
    assert.strictEqual(Effect.runSync(checkPort(33418)), 33418)
    assert.isTrue(Effect.runSync(Effect.result(checkPort(0)))._tag === "Failure")
    assert.isTrue(Effect.runSync(Effect.result(checkPort(65536)))._tag === "Failure")
    assert.strictEqual(authOptions(4321).redirectUrl, "http://127.0.0.1:4321/callback")
    assert.strictEqual(authOptions(4321).clientName, "mcp-effect")
  })
})

describe("server strings on the terminal", () => {
  it("controls made visible; newline and tab kept; --json escapes C1 and bidi and still parses to the same", () => {
    assert.strictEqual(visible("a\u001b[2Jb\rc\u0007"), "a\\x1b[2Jb\\x0dc\\x07")
    assert.strictEqual(visible("line\n\tnext é 世界 😀"), "line\n\tnext é 世界 😀")
    assert.strictEqual(visible("\u009b31m\u007f\u0000"), "\\x9b31m\\x7f\\x00")
    assert.strictEqual(visible("\u202eabc\u2066\u200e\u061c"), "\\u202eabc\\u2066\\u200e\\u061c")
    assert.strictEqual(visible(visible("\u001b\u202e")), visible("\u001b\u202e"))
    const value = { "k\u202e": ["\u001b]52;c;x\u0007", "\u009b", "\u2069ok"] }
    const text = json(value, 2)
    assert.notMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/)
    assert.deepStrictEqual(JSON.parse(text), value)
  })
})

describe("bounded: a server's value to a bounded depth (issue 28 item 12)", () => {
  it("a value within the bound is the value itself; a deeper one is cut, its keys in order, __proto__ an own key", () => {
    const shallow = { a: [1, { b: "c" }] }
    assert.strictEqual(bounded(shallow), shallow)
    const cut = bounded(JSON.parse("{\"z\":1,\"__proto__\":{\"x\":[[[1]]]},\"a\":2}"), 3)
    assert.deepStrictEqual(Object.keys(cut as object), ["z", "__proto__", "a"])
    assert.strictEqual(JSON.stringify(cut), `{"z":1,"__proto__":{"x":[${JSON.stringify(DEEPER)}]},"a":2}`)
    assert.strictEqual(Object.getPrototypeOf(cut), Object.prototype)
    // 100,000 deep: no stack overflow, and the JSON shown parses.
    const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)
    assert.isTrue(JSON.parse(json(deep)).flat(70).includes(DEEPER))
  })
})

describe("tables fitted to a width (issue 28 item 3)", () => {
  it("wrap: at spaces and after commas, a long word cut, three lines at most with …", () => {
    assert.deepStrictEqual(wrap("Echoes back the input string", 12), ["Echoes back", "the input", "string"])
    assert.deepStrictEqual(wrap("read-only,idempotent,closed-world", 21), ["read-only,idempotent,", "closed-world"])
    assert.deepStrictEqual(wrap("a: string, b?: number", 12), ["a: string,", "b?: number"])
    assert.deepStrictEqual(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"])
    assert.deepStrictEqual(wrap("one two three four five six", 5), ["one", "two", "thre…"])
  })

  it("fitWidths: within the width the natural widths; else the first keeps up to a third, the widest shrink", () => {
    assert.deepStrictEqual(fitWidths([4, 10, 20], [4, 10, 11], 100), [4, 10, 20])
    const fitted = fitWidths([30, 74, 37, 300], [4, 10, 11, 11], 110)
    assert.strictEqual(fitted[0], 30)
    assert.isAtMost(fitted.reduce((sum, w) => sum + w, 0) + 2 * 3, 110)
    assert.isAtLeast(Math.min(...fitted), 10)
  })

  it("table: every line within the width, each cell wrapped in its column; wide: one line per row", () => {
    const rows = [["echo", "message: string", "Echoes back the input string, and says nothing else at all"]]
    const fitted = table(["NAME", "PARAMETERS", "DESCRIPTION"], rows, { columns: 40 }).split("\n")
    for (const line of fitted) assert.isAtMost([...line].length, 40, line)
    assert.isAbove(fitted.length, 3)
    const wide = table(["NAME", "PARAMETERS", "DESCRIPTION"], rows, { columns: 40, wide: true }).split("\n")
    assert.strictEqual(wide.length, 3)
    assert.match(wide[2] ?? "", /^echo {2}message: string {2}Echoes back the input string, and says nothing else at all$/)
  })

  it("clip: at most max code points, the cut marked; astral characters counted as one, never split", () => {
    assert.strictEqual(clip("short", 10), "short")
    assert.strictEqual(clip("abcdefghijkl", 5), "abcd…")
    const emoji = "😀".repeat(1_000_000)
    const cut = clip(emoji, 10)
    assert.strictEqual([...cut].length, 10)
    assert.strictEqual(cut, `${"😀".repeat(9)}…`)
    assert.strictEqual(clip("😀".repeat(8), 10), "😀".repeat(8)) // 16 UTF-16 units, 8 code points: whole
  })

  it("table (issue 33, item 14): a cell cut at MAX_FIELD, at most MAX_ROWS rows and MAX_TABLE characters, then how many were left", () => {
    const long = table(["ID", "NAME"], [["x".repeat(1_000_000), "a"], ["b", "c"]], { wide: true }).split("\n")
    for (const line of long) assert.isBelow(line.length, MAX_FIELD + 20)
    const many = table(["ID"], Array.from({ length: MAX_ROWS + 500 }, (_, i) => [`row${i}`]))
    assert.match(many, new RegExp(`… and 500 more \\(--json lists every one\\)$`))
    const wide = table(["ID", "TEXT"], Array.from({ length: MAX_ROWS }, (_, i) => [`row${i}`, "t".repeat(MAX_FIELD)]))
    assert.isBelow(wide.length, MAX_TABLE + 1_000)
    assert.match(wide, /… and \d+ more \(--json lists every one\)$/)
  })
})
