/**
 * `mcp-effect skills` and `mcp-effect skill NAME [--out DIR]`, run in process (the command as `main` runs it)
 * against the official SDK's skills extension over stdio: the list, the verified `SKILL.md`, the whole verified
 * skill written to a folder, and a write a symbolic link would carry outside the folder refused.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Command from "effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { command } from "../src/internal/commands/root.js"
import { CommandTail } from "../src/internal/session/connection.js"

const script = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/skills")
const stdio = ["--stdio", `${process.execPath} ${script} --impl official`]

/** Run the command in process; what it logged, and its failure if it failed. */
const run = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const capture: Console.Console = { ...globalThis.console, log: (...items: ReadonlyArray<unknown>) => void lines.push(items.join(" ")) }
    const exit = yield* Command.runWith(command, { version: "0.0.0" })(args).pipe(
      Effect.provideService(CommandTail, undefined),
      Effect.provideService(Console.Console, capture),
      Effect.provide(NodeServices.layer),
      Effect.exit
    )
    return { stdout: lines.join("\n"), exit }
  })

const temp = () => mkdtempSync(join(tmpdir(), "mcp-effect-skill-"))

describe("mcp-effect skills / skill", () => {
  it.live("skills: a table of the server's skills, and --json", () =>
    Effect.gen(function*() {
      const human = yield* run(["skills", ...stdio])
      assert.strictEqual(human.exit._tag, "Success")
      assert.match(human.stdout, /^NAME\s+FILES\s+URI\s+DESCRIPTION$/m)
      assert.match(human.stdout, /^pdf-processing\s+3\s+skill:\/\/pdf-processing\/SKILL\.md\s+Extract, fill, and assemble PDF documents$/m)
      assert.match(human.stdout, /^release-notes\s+1\s+/m)
      const machine = yield* run(["skills", "--json", ...stdio])
      const listed = JSON.parse(machine.stdout) as ReadonlyArray<{ readonly name: string }>
      assert.deepStrictEqual(listed.map((s) => s.name).sort(), ["pdf-processing", "release-notes"])
    }), 60_000)

  it.live("skill NAME prints the verified SKILL.md; an unknown name is a usage error", () =>
    Effect.gen(function*() {
      const shown = yield* run(["skill", "release-notes", ...stdio])
      assert.strictEqual(shown.exit._tag, "Success")
      assert.strictEqual(
        shown.stdout,
        "---\nname: release-notes\ndescription: \"Write release notes: one line per change\"\n---\n\nList every merged change, newest first."
      )
      const unknown = yield* run(["skill", "nope", ...stdio])
      assert.strictEqual(unknown.exit._tag, "Failure")
      assert.include(String(unknown.exit._tag === "Failure" ? unknown.exit.cause : ""), "no skill \"nope\"")
    }), 60_000)

  it.live("skill NAME --out DIR writes every verified file in DIR, and nothing through a link out of it", () =>
    Effect.gen(function*() {
      const out = temp()
      const elsewhere = temp()
      try {
        const written = yield* run(["skill", "pdf-processing", "--out", out, ...stdio])
        assert.strictEqual(written.exit._tag, "Success")
        assert.deepStrictEqual(written.stdout.split("\n").sort(), ["SKILL.md", "assets/icon.bin", "references/FORMS.md"])
        assert.strictEqual(readFileSync(join(out, "references/FORMS.md"), "utf8"), "Form fields live in the AcroForm dictionary.\n")
        assert.deepStrictEqual([...readFileSync(join(out, "assets/icon.bin"))], [0, 1, 2, 253, 254, 255])
        assert.include(readFileSync(join(out, "SKILL.md"), "utf8"), "name: pdf-processing")

        const trap = temp()
        symlinkSync(elsewhere, join(trap, "references"))
        const refused = yield* run(["skill", "pdf-processing", "--out", trap, ...stdio])
        assert.strictEqual(refused.exit._tag, "Failure")
        assert.include(String(refused.exit._tag === "Failure" ? refused.exit.cause : ""), "refusing to write")
        assert.deepStrictEqual(readdirSync(elsewhere), [])
        // Checked before the first write: nothing was written at all.
        assert.deepStrictEqual(readdirSync(trap), ["references"])
        rmSync(trap, { recursive: true, force: true })
      } finally {
        rmSync(out, { recursive: true, force: true })
        rmSync(elsewhere, { recursive: true, force: true })
      }
    }), 60_000)
})

describe("mcp-effect skills / skill, a server that lists its skills as \"dynamic\" (official SDK, directoryRead)", () => {
  const dynamic = ["--stdio", `${process.execPath} ${script} --impl official-dynamic`]

  it.live("skills shows no file count; skill NAME --out DIR walks the skill's folders and writes every verified file", () =>
    Effect.gen(function*() {
      const listed = yield* run(["skills", ...dynamic])
      assert.strictEqual(listed.exit._tag, "Success")
      assert.match(listed.stdout, /^pdf-processing\s+dynamic\s+skill:\/\/pdf-processing\/SKILL\.md\s+/m)
      const out = temp()
      try {
        const written = yield* run(["skill", "pdf-processing", "--out", out, ...dynamic])
        assert.strictEqual(written.exit._tag, "Success")
        assert.deepStrictEqual(written.stdout.split("\n").sort(), ["SKILL.md", "assets/icon.bin", "references/FORMS.md"])
        assert.strictEqual(readFileSync(join(out, "references/FORMS.md"), "utf8"), "Form fields live in the AcroForm dictionary.\n")
        assert.deepStrictEqual([...readFileSync(join(out, "assets/icon.bin"))], [0, 1, 2, 253, 254, 255])
        const shown = yield* run(["skill", "release-notes", ...dynamic])
        assert.strictEqual(shown.exit._tag, "Success")
        assert.include(shown.stdout, "List every merged change, newest first.")
      } finally {
        rmSync(out, { recursive: true, force: true })
      }
    }), 60_000)
})
