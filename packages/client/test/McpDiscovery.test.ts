/**
 * Server Card discovery against real HTTP hosts on 127.0.0.1 (`@mcp-effect/test-servers/card-host`), on
 * `FetchHttpClient`: catalogs and cards that are good, too large, on an insecure URL, of the wrong media type,
 * redirected in a loop or to plain http, not a card at all; `Cache-Control` under `TestClock`.
 */
import * as McpDiscovery from "@mcp-effect/client/McpDiscovery"
import type { CardHost, CardRoute } from "@mcp-effect/test-servers/card-host"
import { startCardHost } from "@mcp-effect/test-servers/card-host"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { readFileSync } from "node:fs"

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/cards/${name}`, import.meta.url), "utf8"))

const weather = fixture("weather-card.json")

/** A card host for the test's scope. */
const host = (routes: Readonly<Record<string, CardRoute>> = {}): Effect.Effect<CardHost, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => startCardHost(routes)), (started) => Effect.promise(started.close))

/** `fetch`, and a cache of the test's own. */
const onFetch = Layer.mergeAll(FetchHttpClient.layer, McpDiscovery.layerCache())

const failure = <A, R>(effect: Effect.Effect<A, McpDiscovery.McpDiscoveryError, R>) => Effect.flip(effect)

describe("McpDiscovery.catalog", () => {
  it.effect("lists the MCP servers of the domain's AI Catalog, its other entries and unknown fields kept", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/.well-known/ai-catalog.json": {
          kind: "json",
          body: fixture("catalog.json"),
          headers: { "content-type": "application/ai-catalog+json" }
        },
        "/weather/mcp/server-card": { kind: "json", body: weather }
      })
      const found = yield* McpDiscovery.catalog(`${served.origin}/some/path`)
      assert.strictEqual(found.url, `${served.origin}/.well-known/ai-catalog.json`)
      assert.strictEqual(found.catalog.entries.length, 3)
      assert.deepStrictEqual(found.catalog["host"], { displayName: "Example" })
      assert.strictEqual(found.catalog.entries[2]?.["publisher"], "Example")
      assert.deepStrictEqual(found.servers.map((server) => server.identifier), [
        "urn:air:example.com:mcp:weather",
        "urn:air:example.com:mcp:notes"
      ])
      const [remote, inline] = found.servers
      assert.strictEqual(remote?.url, `${served.origin}/weather/mcp/server-card`)
      assert.strictEqual(inline?.card?.name, "com.example/notes")
      assert.strictEqual(served.hits("/weather/mcp/server-card"), 0)
      if (remote === undefined || inline === undefined) return assert.fail("two servers expected")
      const fetched = yield* McpDiscovery.serverCard(remote)
      assert.strictEqual(fetched.name, "com.example/weather")
      assert.include(served.lastAccept("/weather/mcp/server-card") ?? "", McpDiscovery.CARD_MEDIA_TYPE)
      assert.strictEqual((yield* McpDiscovery.serverCard(inline)).version, "0.3.0")
    }).pipe(Effect.provide(onFetch)))

  it.effect("falls back to the earlier /.well-known/mcp/catalog.json when the AI Catalog is 404", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/.well-known/mcp/catalog.json": {
          kind: "json",
          body: fixture("catalog.json"),
          headers: { "content-type": "application/json" }
        }
      })
      const found = yield* McpDiscovery.catalog(served.origin)
      assert.strictEqual(found.url, `${served.origin}/.well-known/mcp/catalog.json`)
      assert.strictEqual(found.servers.length, 2)
      assert.strictEqual(served.hits("/.well-known/ai-catalog.json"), 1)
    }).pipe(Effect.provide(onFetch)))

  it.effect("a domain with neither catalog fails with http 404 naming the AI Catalog location", () =>
    Effect.gen(function*() {
      const served = yield* host()
      const error = yield* failure(McpDiscovery.catalog(served.origin))
      assert.strictEqual(error.reason, "http")
      assert.strictEqual(error.status, 404)
      assert.strictEqual(error.url, `${served.origin}/.well-known/ai-catalog.json`)
    }).pipe(Effect.provide(onFetch)))

  it.effect("an MCP entry with both url and data is invalid", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/.well-known/ai-catalog.json": {
          kind: "json",
          headers: { "content-type": "application/json" },
          body: {
            specVersion: "1.0",
            entries: [{ identifier: "urn:air:x", type: McpDiscovery.CARD_MEDIA_TYPE, url: "/c", data: weather }]
          }
        }
      })
      const error = yield* failure(McpDiscovery.catalog(served.origin))
      assert.strictEqual(error.reason, "invalid")
      assert.include(error.detail, "urn:air:x")
    }).pipe(Effect.provide(onFetch)))
})

describe("McpDiscovery.card", () => {
  it.effect("decodes a card, keeps its unknown fields, and gives the Streamable HTTP endpoint only", () =>
    Effect.gen(function*() {
      const served = yield* host({ "/mcp/server-card": { kind: "json", body: weather } })
      const at = yield* McpDiscovery.cardUrl(`${served.origin}/mcp?session=1`)
      assert.strictEqual(at.href, `${served.origin}/mcp/server-card`)
      const card = yield* McpDiscovery.card(at)
      assert.deepStrictEqual(yield* McpDiscovery.endpointCard(`${served.origin}/mcp/`), card)
      assert.strictEqual(card.name, "com.example/weather")
      assert.strictEqual(card.version, "2.1.0")
      assert.deepStrictEqual(card["x-card-extension"], { kept: true })
      assert.deepStrictEqual(card.remotes?.[1]?.["x-vendor-routing"], { region: "eu" })
      assert.deepStrictEqual(card._meta, { "com.example/tier": "free" })
      // The SSE remote is skipped; the tenant variable takes its default; no header or secret comes along.
      assert.deepStrictEqual(McpDiscovery.connectionOptions(card), Option.some({ url: "https://public.example.com/mcp" }))
      assert.deepStrictEqual(
        McpDiscovery.connectionOptions(card, { variables: { tenant: "acme" } }),
        Option.some({ url: "https://acme.example.com/mcp" })
      )
    }).pipe(Effect.provide(onFetch)))

  it.effect("connectionOptions: no Streamable HTTP remote, an unfilled secret, or plain http to another host give none", () =>
    Effect.sync(() => {
      const base = { name: "com.example/x", version: "1" }
      assert.isTrue(Option.isNone(McpDiscovery.connectionOptions({ ...base, remotes: [{ type: "sse", url: "https://x/sse" }] })))
      assert.isTrue(Option.isNone(McpDiscovery.connectionOptions({
        ...base,
        remotes: [{ type: "streamable-http", url: "https://x/{key}", variables: { key: { isSecret: true, default: "s" } } }]
      })))
      assert.isTrue(Option.isNone(McpDiscovery.connectionOptions({
        ...base,
        remotes: [{ type: "streamable-http", url: "http://example.com/mcp" }]
      })))
    }))

  it.effect("connectionOptions never carries a credential from a card: userinfo, credential query parameters and variables (issue 33, item 13)", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/server-card": {
          kind: "json",
          body: {
            name: "com.example/trap",
            version: "1",
            remotes: [
              {
                type: "streamable-http",
                url: "https://user:s3cret-pass@api.example.com/mcp?tenant=acme&api_key=k3y-from-card&access_token=t0ken&apiKey=x&sig=y#id_token=frag",
                headers: [{ name: "Authorization", value: "Bearer card-token", isSecret: false }]
              }
            ]
          }
        },
        "/keyed/server-card": {
          kind: "json",
          body: {
            name: "com.example/keyed",
            version: "1",
            remotes: [{ type: "streamable-http", url: "https://x.example.com/{api_key}/mcp", variables: { api_key: { default: "k3y" } } }]
          }
        }
      })
      const card = yield* McpDiscovery.card(`${served.origin}/server-card`)
      const options = McpDiscovery.connectionOptions(card)
      assert.deepStrictEqual(options, Option.some({ url: "https://api.example.com/mcp?tenant=acme" }))
      const shown = JSON.stringify(options)
      for (const secret of ["user", "s3cret-pass", "k3y-from-card", "t0ken", "card-token", "sig=", "frag"]) {
        assert.notInclude(shown, secret)
      }
      // A variable named like a credential is never filled from the card: the caller gives it, or there is none.
      const keyed = yield* McpDiscovery.card(`${served.origin}/keyed/server-card`)
      assert.isTrue(Option.isNone(McpDiscovery.connectionOptions(keyed)))
      assert.deepStrictEqual(
        McpDiscovery.connectionOptions(keyed, { variables: { api_key: "mine" } }),
        Option.some({ url: "https://x.example.com/mine/mcp" })
      )
    }).pipe(Effect.provide(onFetch)))

  it("withoutCredentials: a URL to show keeps what it names and loses what would carry a credential", () => {
    // As written when there is nothing to take out (no normalisation of what the card wrote).
    assert.strictEqual(McpDiscovery.withoutCredentials("https://x.example.com/{region}/mcp"), "https://x.example.com/{region}/mcp")
    assert.strictEqual(
      McpDiscovery.withoutCredentials("http://user:s3cret@example.com/mcp?tenant=acme&api_key=k3y#access_token=t0ken"),
      "http://example.com/mcp?tenant=acme"
    )
    // A {variable} in the host does not parse as a URL: its userinfo goes all the same.
    assert.strictEqual(
      McpDiscovery.withoutCredentials("https://user:s3cret@{tenant}.example.com/mcp"),
      "https://{tenant}.example.com/mcp"
    )
  })

  it("remoteWithoutCredentials: values of secret or credential-named headers and variables are withheld, the rest kept", () => {
    const shown = McpDiscovery.remoteWithoutCredentials({
      type: "streamable-http",
      url: "https://user:pw@{region}.example.com/mcp?token=t&x=1",
      headers: [
        { name: "X-API-Key", value: "k3y", choices: ["k1", "k2"] },
        { name: "X-Trace", value: "on", variables: { session_token: { default: "s3ss" } } }
      ],
      variables: { region: { default: "eu" }, tenant: { isSecret: true, value: "t3nant" } }
    })
    assert.strictEqual(shown.url, "https://{region}.example.com/mcp?x=1")
    assert.deepStrictEqual(shown.headers, [
      { name: "X-API-Key", value: "[withheld]", choices: ["[withheld]", "[withheld]"] },
      { name: "X-Trace", value: "on", variables: { session_token: { default: "[withheld]" } } }
    ])
    assert.deepStrictEqual(shown.variables, { region: { default: "eu" }, tenant: { isSecret: true, value: "[withheld]" } })
  })

  it.effect("the README's card decodes, and connectionOptions of it is what the README says", () =>
    Effect.gen(function*() {
      const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
      const block = /A card, as served at[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1]
      assert.isDefined(block)
      const served = yield* host({ "/mcp/server-card": { kind: "json", body: JSON.parse(block ?? "null") } })
      const card = yield* McpDiscovery.endpointCard(`${served.origin}/mcp`)
      assert.strictEqual(card.name, "com.example/weather")
      assert.deepStrictEqual(McpDiscovery.connectionOptions(card), Option.some({ url: "https://eu.example.com/mcp" }))
      assert.include(readme, "`connectionOptions` of it is `{ url: \"https://eu.example.com/mcp\" }`")
    }).pipe(Effect.provide(onFetch)))

  it.effect("a huge card: reading stops at 1 MiB, the host stops writing soon after", () =>
    Effect.gen(function*() {
      const served = yield* host({ "/big/server-card": { kind: "endless", contentType: McpDiscovery.CARD_MEDIA_TYPE } })
      const error = yield* failure(McpDiscovery.card(`${served.origin}/big/server-card`))
      assert.strictEqual(error.reason, "too-large")
      assert.isBelow(error.message.length, 400)
      // The host wrote what the client read plus what the socket buffers held: far below its own 256 MiB cap.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
      assert.isBelow(served.endlessBytes(), 32 * 1024 * 1024, `${served.endlessBytes()} bytes written`)
    }).pipe(Effect.provide(onFetch)))

  it.effect("a Content-Length past the bound is refused before the body is read", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/server-card": { kind: "json", body: weather, headers: { "content-length": String(2 * 1024 * 1024) } }
      })
      const error = yield* failure(McpDiscovery.card(`${served.origin}/server-card`))
      assert.strictEqual(error.reason, "too-large")
    }).pipe(Effect.provide(onFetch)))

  it.effect("plain http to a host that is not loopback is refused before any request", () =>
    Effect.gen(function*() {
      let requests = 0
      const counting = Layer.succeed(
        HttpClient.HttpClient,
        HttpClient.make(() => {
          requests++
          return Effect.die("no request may be sent")
        })
      )
      const refused = (effect: Effect.Effect<unknown, McpDiscovery.McpDiscoveryError, HttpClient.HttpClient>) =>
        failure(Effect.provide(effect, counting))
      const card = yield* refused(McpDiscovery.card("http://example.com/mcp/server-card"))
      const catalog = yield* refused(McpDiscovery.catalog("http://example.com"))
      assert.strictEqual(card.reason, "insecure")
      assert.strictEqual(card.url, "http://example.com/mcp/server-card")
      assert.strictEqual(catalog.reason, "insecure")
      assert.strictEqual(requests, 0)
    }).pipe(Effect.provide(McpDiscovery.layerCache())))

  it.effect("a wrong media type is refused", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/server-card": { kind: "text", body: "<html>hello</html>", contentType: "text/html; charset=utf-8" }
      })
      const error = yield* failure(McpDiscovery.card(`${served.origin}/server-card`))
      assert.strictEqual(error.reason, "media-type")
      assert.include(error.detail, "text/html")
      assert.notInclude(error.message, "hello")
    }).pipe(Effect.provide(onFetch)))

  it.effect("application/json is accepted for a card", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/server-card": { kind: "json", body: weather, headers: { "content-type": "application/json; charset=utf-8" } }
      })
      assert.strictEqual((yield* McpDiscovery.card(`${served.origin}/server-card`)).title, "Example Weather")
    }).pipe(Effect.provide(onFetch)))

  it.effect("redirects: followed on loopback, a loop stops after 5, a hop to plain http elsewhere is refused", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/moved": { kind: "redirect", location: "/mcp/server-card", status: 301 },
        "/mcp/server-card": { kind: "json", body: weather },
        "/loop-a": { kind: "redirect", location: "/loop-b" },
        "/loop-b": { kind: "redirect", location: "/loop-a" },
        "/away": { kind: "redirect", location: "http://example.com/mcp/server-card", status: 307 }
      })
      assert.strictEqual((yield* McpDiscovery.card(`${served.origin}/moved`)).name, "com.example/weather")
      const loop = yield* failure(McpDiscovery.card(`${served.origin}/loop-a`))
      assert.strictEqual(loop.reason, "redirect")
      assert.strictEqual(served.hits("/loop-a") + served.hits("/loop-b"), McpDiscovery.MAX_REDIRECTS + 1)
      const away = yield* failure(McpDiscovery.card(`${served.origin}/away`))
      assert.strictEqual(away.reason, "redirect")
      assert.include(away.detail, "http://example.com")
    }).pipe(Effect.provide(onFetch)))

  it.effect("JSON that is not a card, and a body that is not JSON, are invalid", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/other": { kind: "json", body: fixture("not-a-card.json") },
        "/broken": { kind: "text", body: "{\"name\": ", contentType: McpDiscovery.CARD_MEDIA_TYPE }
      })
      const other = yield* failure(McpDiscovery.card(`${served.origin}/other`))
      assert.strictEqual(other.reason, "invalid")
      assert.include(other.detail, "not a server card")
      const broken = yield* failure(McpDiscovery.card(`${served.origin}/broken`))
      assert.strictEqual(broken.reason, "invalid")
    }).pipe(Effect.provide(onFetch)))

  it.effect("a loopback host that is not listening fails with http, naming the URL", () =>
    Effect.gen(function*() {
      const served = yield* host()
      const url = `${served.origin}/server-card`
      yield* Effect.promise(served.close)
      const error = yield* failure(McpDiscovery.card(url))
      assert.strictEqual(error.reason, "http")
      assert.strictEqual(error.url, url)
      assert.isUndefined(error.status)
    }).pipe(Effect.provide(onFetch)))

  it.effect("a status other than 200 fails with http and the status", () =>
    Effect.gen(function*() {
      const served = yield* host({ "/gone": { kind: "json", body: weather, status: 410 } })
      const error = yield* failure(McpDiscovery.card(`${served.origin}/gone`))
      assert.strictEqual(error.reason, "http")
      assert.strictEqual(error.status, 410)
    }).pipe(Effect.provide(onFetch)))
})

// The same rules on Node's own clients (undici and node:http), which never follow redirects themselves.
for (const [name, client] of [["undici", NodeHttpClient.layerUndici], ["node:http", NodeHttpClient.layerNodeHttp]] as const) {
  describe(`McpDiscovery on NodeHttpClient (${name})`, () => {
    const onNode = Layer.mergeAll(client, McpDiscovery.layerCache())
    it.effect("a redirected card, a loop, a huge card, a wrong media type", () =>
      Effect.gen(function*() {
        const served = yield* host({
          "/moved": { kind: "redirect", location: "/mcp/server-card" },
          "/mcp/server-card": { kind: "json", body: weather },
          "/loop": { kind: "redirect", location: "/loop" },
          "/big": { kind: "endless", contentType: McpDiscovery.CARD_MEDIA_TYPE },
          "/page": { kind: "text", body: "<p>hi</p>", contentType: "text/html" }
        })
        assert.strictEqual((yield* McpDiscovery.card(`${served.origin}/moved`)).name, "com.example/weather")
        assert.strictEqual((yield* failure(McpDiscovery.card(`${served.origin}/loop`))).reason, "redirect")
        assert.strictEqual(served.hits("/loop"), McpDiscovery.MAX_REDIRECTS + 1)
        assert.strictEqual((yield* failure(McpDiscovery.card(`${served.origin}/big`))).reason, "too-large")
        assert.strictEqual((yield* failure(McpDiscovery.card(`${served.origin}/page`))).reason, "media-type")
      }).pipe(Effect.provide(onNode)))
  })
}

describe("McpDiscovery time bound", () => {
  it.effect("a host that stalls mid-body fails with timeout after 30 seconds on the Clock", () =>
    Effect.gen(function*() {
      const served = yield* host({ "/server-card": { kind: "stall" } })
      const fiber = yield* Effect.forkChild(failure(McpDiscovery.card(`${served.origin}/server-card`)))
      // Real I/O first: the request reaches the host and the head comes back before the clock moves.
      while (served.hits("/server-card") === 0) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
      yield* TestClock.adjust("29 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason, "timeout")
    }).pipe(Effect.provide(onFetch)))
})

describe("McpDiscovery caching", () => {
  it.effect("Cache-Control max-age keeps a card for its age on the Clock, then it is fetched again", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/server-card": { kind: "json", body: weather, headers: { "cache-control": "public, max-age=60" } }
      })
      const url = `${served.origin}/server-card`
      yield* McpDiscovery.card(url)
      yield* TestClock.adjust("59 seconds")
      assert.strictEqual((yield* McpDiscovery.card(url)).name, "com.example/weather")
      assert.strictEqual(served.hits("/server-card"), 1)
      yield* TestClock.adjust("1 second")
      yield* McpDiscovery.card(url)
      assert.strictEqual(served.hits("/server-card"), 2)
    }).pipe(Effect.provide(onFetch)))

  it.effect("Age counts against max-age", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/server-card": { kind: "json", body: weather, headers: { "cache-control": "max-age=60", age: "50" } }
      })
      const url = `${served.origin}/server-card`
      yield* McpDiscovery.card(url)
      yield* TestClock.adjust("10 seconds")
      yield* McpDiscovery.card(url)
      assert.strictEqual(served.hits("/server-card"), 2)
    }).pipe(Effect.provide(onFetch)))

  it.effect("once stale, a card with an ETag is revalidated with If-None-Match: 304 keeps it, a new ETag replaces it", () =>
    Effect.gen(function*() {
      const headers = { "cache-control": "max-age=10", etag: "\"v1\"" }
      const served = yield* host({ "/server-card": { kind: "json", body: weather, headers } })
      const url = `${served.origin}/server-card`
      yield* McpDiscovery.card(url)
      assert.isUndefined(served.lastIfNoneMatch("/server-card"))
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* McpDiscovery.card(url)).version, "2.1.0")
      assert.strictEqual(served.lastIfNoneMatch("/server-card"), "\"v1\"")
      assert.strictEqual(served.hits("/server-card"), 2)
      // The 304 gave a fresh max-age: no request within it.
      yield* TestClock.adjust("9 seconds")
      yield* McpDiscovery.card(url)
      assert.strictEqual(served.hits("/server-card"), 2)
      served.route("/server-card", {
        kind: "json",
        body: { name: "com.example/weather", version: "2.2.0" },
        headers: { ...headers, etag: "\"v2\"" }
      })
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* McpDiscovery.card(url)).version, "2.2.0")
      assert.strictEqual(served.hits("/server-card"), 3)
    }).pipe(Effect.provide(onFetch)))

  it.effect("no-cache with an ETag: asked every time, conditionally", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/server-card": { kind: "json", body: weather, headers: { "cache-control": "no-cache", etag: "\"a\"" } }
      })
      const url = `${served.origin}/server-card`
      yield* McpDiscovery.card(url)
      assert.strictEqual((yield* McpDiscovery.card(url)).name, "com.example/weather")
      assert.strictEqual(served.hits("/server-card"), 2)
      assert.strictEqual(served.lastIfNoneMatch("/server-card"), "\"a\"")
    }).pipe(Effect.provide(onFetch)))

  it.effect("no-store, no-cache and no Cache-Control at all are not kept", () =>
    Effect.gen(function*() {
      const served = yield* host({
        "/no-store": { kind: "json", body: weather, headers: { "cache-control": "no-store, max-age=60" } },
        "/no-cache": { kind: "json", body: weather, headers: { "cache-control": "no-cache" } },
        "/silent": { kind: "json", body: weather }
      })
      for (const path of ["/no-store", "/no-cache", "/silent"]) {
        yield* McpDiscovery.card(`${served.origin}${path}`)
        yield* McpDiscovery.card(`${served.origin}${path}`)
        assert.strictEqual(served.hits(path), 2, path)
      }
    }).pipe(Effect.provide(onFetch)))
})
