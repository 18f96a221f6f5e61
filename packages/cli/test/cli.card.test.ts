/**
 * `mcp-effect card` as a real process: cards served by the scripted card host
 * (`@mcp-effect/test-servers/card-host`) about a real server (the official SDK's, over Streamable HTTP on
 * loopback). A faithful card prints and checks (exit 0); a lying one is checked (exit 1, each difference named);
 * a huge card, and a card on plain http to a host that is not loopback, cannot be read (exit 3, the reason).
 */
import { assert, describe, it } from "@effect/vitest"
import { type CardHost, startCardHost } from "@mcp-effect/test-servers/card-host"
import * as OfficialServer from "@mcp-effect/test-servers/official-server"
import * as Effect from "effect/Effect"
import { createServer, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { launch, official, run } from "./fixtures/run.js"

const host = Effect.acquireRelease(Effect.promise(() => startCardHost()), (started: CardHost) => Effect.promise(started.close))

interface Checked {
  readonly differences: ReadonlyArray<{ readonly field: string; readonly card: string; readonly live: string }>
}

describe("mcp-effect card", () => {
  it.live("a faithful card prints and checks (0); a lying card differs (1); huge or insecure cannot be read (3); a catalog", () =>
    Effect.gen(function*() {
      const serverUrl = yield* launch([official, "--http", "--port", "0"])
      const cards = yield* host
      cards.route("/mcp/server-card", {
        kind: "json",
        body: {
          name: `io.github.mcp-effect/${OfficialServer.SERVER_NAME}`,
          title: "The example server",
          version: OfficialServer.SERVER_VERSION,
          description: "Tools for the tests",
          remotes: [{ type: "streamable-http", url: serverUrl, supportedProtocolVersions: ["2026-07-28", "2025-11-25"] }]
        }
      })
      cards.route("/lying.json", {
        kind: "json",
        body: {
          name: "io.example/bank-of-example",
          version: "9.9.9",
          remotes: [{ type: "streamable-http", url: serverUrl }],
          tools: [{ name: "transfer_funds" }]
        }
      })
      cards.route("/huge/server-card", { kind: "endless", contentType: "application/mcp-server-card+json" })
      cards.route("/.well-known/ai-catalog.json", {
        kind: "json",
        headers: { "content-type": "application/json" },
        body: {
          specVersion: "1.0",
          entries: [
            { identifier: "urn:air:test:mcp:example", type: "application/mcp-server-card+json", url: "/mcp/server-card" },
            { identifier: "urn:air:test:mcp:inline", type: "application/mcp-server-card+json", data: { name: "io.test/inline", version: "1.0.0" } }
          ]
        }
      })

      // An endpoint's URL: the card is read at <endpoint>/server-card.
      const shown = yield* run(["card", `${cards.origin}/mcp`])
      assert.strictEqual(shown.code, 0, shown.stderr)
      assert.match(shown.stdout, /^name:\s+io\.github\.mcp-effect\/official-demo$/m)
      assert.match(shown.stdout, /^title:\s+The example server$/m)
      assert.match(shown.stdout, /^version:\s+1\.0\.0$/m)
      assert.include(shown.stdout, `streamable-http ${serverUrl} (protocol 2026-07-28, 2025-11-25)`)

      const faithful = yield* run(["card", `${cards.origin}/mcp/server-card`, "--check"])
      assert.strictEqual(faithful.code, 0, faithful.stderr)
      assert.strictEqual(faithful.stdout, "the card agrees with the server\n")

      const lying = yield* run(["card", `${cards.origin}/lying.json`, "--check"])
      assert.strictEqual(lying.code, 1, lying.stderr)
      assert.match(lying.stdout, /^name\s+io\.example\/bank-of-example\s+official-demo$/m)
      assert.match(lying.stdout, /^version\s+9\.9\.9\s+1\.0\.0$/m)
      assert.match(lying.stdout, /^tools\s.*transfer_funds/m)
      const lyingJson = yield* run(["card", `${cards.origin}/lying.json`, "--check", "--json"])
      assert.strictEqual(lyingJson.code, 1)
      const fields = (JSON.parse(lyingJson.stdout) as Checked).differences.map((d) => d.field)
      assert.includeMembers(fields, ["name", "version", "tools"])
      // The server the command line names is checked instead of the card's remote.
      const given = yield* run(["card", `${cards.origin}/lying.json`, "--check", "--url", serverUrl, "--json"])
      assert.strictEqual(given.code, 1)

      const huge = yield* run(["card", `${cards.origin}/huge/server-card`])
      assert.strictEqual(huge.code, 3)
      assert.include(huge.stderr, "(too-large)")
      assert.strictEqual(huge.stdout, "")
      const insecure = yield* run(["card", "http://cards.example.com/mcp", "--check"])
      assert.strictEqual(insecure.code, 3)
      assert.include(insecure.stderr, "(insecure)")
      const insecureJson = yield* run(["card", "http://cards.example.com/mcp", "--json"])
      assert.strictEqual(insecureJson.code, 3)
      assert.strictEqual((JSON.parse(insecureJson.stdout) as { error: { tag: string } }).error.tag, "McpDiscoveryError")

      const catalog = yield* run(["card", cards.origin, "--catalog"])
      assert.strictEqual(catalog.code, 0, catalog.stderr)
      assert.match(catalog.stdout, /^urn:air:test:mcp:example\s+.*\/mcp\/server-card$/m)
      assert.match(catalog.stdout, /^urn:air:test:mcp:inline\s+io\.test\/inline\s+\(inline\)$/m)
    }))

  it.live("--check connects where a card says without the credentials the card carries (issue 33, item 13)", () =>
    Effect.gen(function*() {
      const serverUrl = new URL(yield* launch([official, "--http", "--port", "0"]))
      // A loopback relay in front of the server that notes what each request carried (its URL, its Authorization).
      const seen: Array<string> = []
      const relay = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<Server>((resolve) => {
            const server = createServer((req, res) => {
              seen.push(`${req.url ?? ""} ${req.headers.authorization ?? "(no authorization)"}`)
              const upstream = request(
                { host: serverUrl.hostname, port: serverUrl.port, path: serverUrl.pathname, method: req.method, headers: req.headers },
                (answer) => {
                  res.writeHead(answer.statusCode ?? 502, answer.headers)
                  answer.pipe(res)
                }
              )
              req.pipe(upstream)
            })
            server.listen(0, "127.0.0.1", () => resolve(server))
          })
        ),
        (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
      const port = (relay.address() as AddressInfo).port
      const cards = yield* host
      cards.route("/trap.json", {
        kind: "json",
        body: {
          name: `io.github.mcp-effect/${OfficialServer.SERVER_NAME}`,
          version: OfficialServer.SERVER_VERSION,
          remotes: [{
            type: "streamable-http",
            url: `http://card-user:card-s3cret@127.0.0.1:${port}/mcp?api_key=card-k3y&x=1`,
            headers: [
              { name: "Authorization", value: "Bearer card-t0ken" },
              { name: "X-Signing", isSecret: true, default: "card-sign3d" },
              { name: "X-Tenant", value: "acme-tenant" }
            ]
          }]
        }
      })
      const checked = yield* run(["card", `${cards.origin}/trap.json`, "--check", "--json"])
      assert.strictEqual(checked.code, 0, checked.stderr)
      assert.deepStrictEqual((JSON.parse(checked.stdout) as Checked).differences, [])
      assert.isAbove(seen.length, 0)
      for (const line of seen) {
        assert.strictEqual(line, "/mcp?x=1 (no authorization)")
      }
      // Nor does the terminal: the card's URL is shown without its userinfo and its api_key, in every form.
      const plain = yield* run(["card", `${cards.origin}/trap.json`])
      assert.strictEqual(plain.code, 0, plain.stderr)
      assert.match(plain.stdout, new RegExp(`^remotes:\\s+streamable-http http://127\\.0\\.0\\.1:${port}/mcp\\?x=1$`, "m"))
      const json = yield* run(["card", `${cards.origin}/trap.json`, "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      // A header's value the card gives is shown unless it is secret or named like a credential (a marker then).
      const remote = (JSON.parse(json.stdout) as { remotes: Array<{ headers: Array<Record<string, unknown>> }> }).remotes[0]
      assert.deepStrictEqual(remote?.headers, [
        { name: "Authorization", value: "[withheld]" },
        { name: "X-Signing", isSecret: true, default: "[withheld]" },
        { name: "X-Tenant", value: "acme-tenant" }
      ])
      for (const out of [plain, json, checked]) {
        for (const secret of ["card-user", "card-s3cret", "card-k3y", "card-t0ken", "card-sign3d"]) {
          assert.notInclude(out.stdout + out.stderr, secret)
        }
      }
    }))

  it.live("a hostile catalog (issue 33, item 14): one very long identifier and many entries; what is printed is bounded per field and in total", () =>
    Effect.gen(function*() {
      const cards = yield* host
      const long = `urn:${"x".repeat(600_000)}`
      const inline = (i: number) => ({
        identifier: `urn:air:test:mcp:s${i}`,
        type: "application/mcp-server-card+json",
        data: { name: `io.test/s${i}`, version: "1.0.0" }
      })
      cards.route("/.well-known/ai-catalog.json", {
        kind: "json",
        headers: { "content-type": "application/json" },
        body: {
          specVersion: "1.0",
          entries: [
            { identifier: long, type: "application/mcp-server-card+json", data: { name: `io.test/${"n".repeat(20_000)}`, version: "1" } },
            ...Array.from({ length: 1500 }, (_, i) => inline(i))
          ]
        }
      })
      cards.route("/long.json", { kind: "json", body: { name: "io.test/long", version: "1", description: "d".repeat(800_000) } })
      const card = yield* run(["card", `${cards.origin}/long.json`])
      assert.strictEqual(card.code, 0, card.stderr)
      assert.isBelow(card.stdout.length, 5_000)
      assert.match(card.stdout, /^description:\s+d+…$/m)
      const listed = yield* run(["card", cards.origin, "--catalog"])
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.notInclude(listed.stderr, "Invalid string length")
      // Each field cut (with …), each row padded only to the cut width, and not every row printed.
      assert.isBelow(listed.stdout.length, 300_000)
      const lines = listed.stdout.split("\n")
      assert.isTrue(lines.every((line) => line.length < 1_000), "a line longer than the bounds allow")
      assert.match(listed.stdout, /^urn:x+… /m)
      assert.match(listed.stdout, /^urn:air:test:mcp:s0\s+io\.test\/s0\s+\(inline\)$/m)
      assert.match(listed.stdout, /^… and \d+ more \(--json lists every one\)$/m)
      // --wide cuts too; --json keeps every entry whole (the document itself is bounded at 1 MiB).
      const wide = yield* run(["card", cards.origin, "--catalog", "--wide"])
      assert.strictEqual(wide.code, 0, wide.stderr)
      assert.isBelow(wide.stdout.length, 300_000)
      const json = yield* run(["card", cards.origin, "--catalog", "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      const servers = (JSON.parse(json.stdout) as { servers: ReadonlyArray<{ identifier: string }> }).servers
      assert.strictEqual(servers.length, 1501)
      assert.strictEqual(servers[0]?.identifier, long)
    }))
})
