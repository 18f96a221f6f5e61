/**
 * `skill NAME --out DIR` against a scripted server serving hostile skills (`fixtures/skill-server.mjs`), the
 * built CLI run as a real process (issue 25, items 1 and 13): no path through `.git`, nothing replaced without
 * `--force`, no write through a hard link, all or nothing, the extension's limits per skill (16 MiB, 512 files,
 * 512 folders); and a skill whose listing the client refused is named with the reason.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { isGitName, unwritable } from "../src/internal/skillFiles.js"
import { cleanup, namesIn, ran, temp } from "./fixtures/files.js"

const skillServer = path.join(import.meta.dirname, "fixtures/skill-server.mjs")

/** `--stdio` for the hostile skill server, its requests logged to `log`. */
const skills = (scenario: string, log: string) => ["--stdio", `${process.execPath} ${skillServer} ${scenario} --log ${log}`]

/** The requests the skill server was sent, as `method uri` lines. */
const requests = (log: string): ReadonlyArray<string> =>
  existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((line) => line !== "") : []

describe("skill NAME --out DIR: what a skill lists is not written as it is (issue 25, item 1)", () => {
  it.live("a path through .git (any case, or an NTFS/HFS alias of it) is refused, and nothing is written", () =>
    Effect.gen(function*() {
      const parent = temp()
      const log = path.join(parent, "requests.log")
      for (const scenario of ["git", "dotgit-alias"]) {
        const out = path.join(parent, scenario)
        const result = yield* ran(["skill", "evil", "--out", out, ...skills(scenario, log)])
        assert.strictEqual(result.code, 3, result.stderr)
        assert.include(result.stderr, "goes through .git")
        assert.isFalse(existsSync(out))
      }
      // Refused before any file was read.
      assert.deepStrictEqual(requests(log).filter((line) => line.startsWith("resources/read")), [])
      assert.deepStrictEqual(namesIn(parent), ["requests.log"])
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 60_000)

  it.live("a folder that is not empty is refused (its .mcp.json kept); --force writes into it, replacing same-named files", () =>
    Effect.gen(function*() {
      const parent = temp()
      const project = path.join(parent, "project")
      mkdirSync(project)
      writeFileSync(path.join(project, ".mcp.json"), "{\"mcpServers\":{\"mine\":{\"command\":\"node\"}}}\n")
      const log = path.join(parent, "requests.log")
      const refused = yield* ran(["skill", "notes", "--out", project, ...skills("notes", log)])
      assert.strictEqual(refused.code, 2, refused.stderr)
      assert.include(refused.stderr, "the folder is not empty (--force writes into it")
      assert.strictEqual(readFileSync(path.join(project, ".mcp.json"), "utf8"), "{\"mcpServers\":{\"mine\":{\"command\":\"node\"}}}\n")
      assert.deepStrictEqual(namesIn(project), [".mcp.json"])
      assert.deepStrictEqual(requests(log).filter((line) => line.startsWith("resources/read")), [])

      const forced = yield* ran(["skill", "notes", "--out", project, "--force", ...skills("notes", log)])
      assert.strictEqual(forced.code, 0, forced.stderr)
      assert.deepStrictEqual(namesIn(project), [".mcp.json", "SKILL.md", "notes.txt"])
      assert.strictEqual(readFileSync(path.join(project, ".mcp.json"), "utf8"), "{\"mcpServers\":{}}\n")
      // Nothing left beside the folder.
      assert.deepStrictEqual(namesIn(parent), ["project", "requests.log"])
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 60_000)

  it.live("a name in DIR that is a hard link to a file outside DIR is never written through", () =>
    Effect.gen(function*() {
      const parent = temp()
      const outside = path.join(parent, "notes.txt")
      writeFileSync(outside, "the user's notes\n")
      const out = path.join(parent, "skill")
      mkdirSync(out)
      linkSync(outside, path.join(out, "notes.txt"))
      const log = path.join(parent, "requests.log")
      const refused = yield* ran(["skill", "notes", "--out", out, ...skills("notes", log)])
      assert.strictEqual(readFileSync(outside, "utf8"), "the user's notes\n")
      assert.strictEqual(refused.code, 2, refused.stderr)

      const forced = yield* ran(["skill", "notes", "--out", out, "--force", ...skills("notes", log)])
      assert.strictEqual(forced.code, 0, forced.stderr)
      assert.strictEqual(readFileSync(outside, "utf8"), "the user's notes\n")
      assert.strictEqual(readFileSync(path.join(out, "notes.txt"), "utf8"), "from the skill\n")
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 60_000)

  it.live("a NUL byte in a name, a 300-byte name, a file/folder clash: nothing is written at all", () =>
    Effect.gen(function*() {
      const parent = temp()
      const log = path.join(parent, "requests.log")
      const reasons = { nul: "holds a NUL byte", long: "has a name longer than 255 bytes", clash: "\"b\" is both a file and a folder" }
      for (const [scenario, reason] of Object.entries(reasons)) {
        const out = path.join(parent, scenario)
        const result = yield* ran(["skill", "evil", "--out", out, ...skills(scenario, log)])
        assert.notStrictEqual(result.code, 0, scenario)
        assert.isFalse(existsSync(out), `${scenario}: ${out} was written`)
        assert.include(result.stderr, reason)
      }
      assert.deepStrictEqual(namesIn(parent), ["requests.log"])
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 60_000)

  it.live("the extension's limits: 16 MiB declared, 512 files, 512 folders, 16 MiB read; nothing written past them", () =>
    Effect.gen(function*() {
      const parent = temp()
      const cases = {
        large: "its files come to more than 16 MiB",
        many: "it has more than 512 files",
        endless: "it has more than 512 folders",
        grows: "its files come to more than 16 MiB",
        sized: "its files come to more than 16 MiB"
      }
      for (const [scenario, reason] of Object.entries(cases)) {
        const log = path.join(parent, `${scenario}.log`)
        const out = path.join(parent, scenario)
        const result = yield* ran(["skill", "evil", "--out", out, ...skills(scenario, log)])
        assert.strictEqual(result.code, 3, `${scenario}: ${result.stderr}`)
        assert.include(result.stderr, reason)
        assert.isFalse(existsSync(out), `${scenario}: ${out} was written`)
        const sent = requests(log)
        const reads = sent.filter((line) => line.startsWith("resources/read")).length
        const folderReads = sent.filter((line) => line.startsWith("resources/directory/read")).length
        // Past a limit by the sizes declared (in the listing, or in a dynamic skill's folder listing): refused
        // before any read. The endless one: once 512 folders are found inside its own (513 read). The growing
        // one: once its eighth 2 MiB file (after SKILL.md) is read.
        if (scenario === "large" || scenario === "many" || scenario === "sized") assert.strictEqual(reads, 0, scenario)
        if (scenario === "endless") assert.strictEqual(folderReads, 513)
        if (scenario === "grows") assert.strictEqual(reads, 9)
      }
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 120_000)
})

describe("skill NAME whose listing the client refused (issue 25, item 13)", () => {
  it.live("says NAME was listed and refused, and why", () =>
    Effect.gen(function*() {
      const log = path.join(temp(), "requests.log")
      const result = yield* ran(["skill", "sneaky", ...skills("refused", log)])
      assert.strictEqual(result.code, 2, result.stderr)
      assert.include(result.stderr, "the server lists a skill \"sneaky\", but its listing was refused as invalid")
      assert.include(result.stderr, "skill://other/steal.md is not inside the skill's directory")
      const unknown = yield* ran(["skill", "nope", ...skills("refused", log)])
      assert.strictEqual(unknown.code, 2)
      assert.include(unknown.stderr, "no skill \"nope\" (the server lists: fine; 1 listing(s) refused as invalid")
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 60_000)
})


describe("the names skill --out refuses", () => {
  it("every spelling of .git a file system takes as .git, and nothing else", () => {
    const git = [".git", ".GIT", ".Git.", ".git ", ".git. .", "git~1", "GIT~1", ".g\u200Cit", "\uFEFF.git", ".git::$INDEX_ALLOCATION", "%2egit", "%2Egit"]
    for (const name of git) assert.isTrue(isGitName(name), JSON.stringify(name))
    for (const name of [".github", ".gitignore", "git", "my.git", ".gitkeep", "git~2"]) assert.isFalse(isGitName(name), name)
    assert.include(unwritable("a/.GIT/hooks/post-checkout") ?? "", "goes through .git")
    assert.include(unwritable(`${"é".repeat(128)}.md`) ?? "", "longer than 255 bytes")
    assert.isUndefined(unwritable(`${"x".repeat(255)}/.github/workflows/ci.yml`))
  })
})
