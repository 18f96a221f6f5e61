/**
 * Hostile metadata and callbacks (issue 17.5, 17.7, 17.8, 17.9): endpoints and URLs that are not https (or
 * http on loopback) are refused before use; protected resource metadata without `resource` is refused; the
 * loopback receiver turns away forged callbacks and keeps waiting for the real one; the credentials the client
 * holds never reach an error or a log.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as engine from "../src/internal/auth/engine.js"
import * as McpAuth from "../src/McpAuth.js"
import * as NodeMcpAuth from "../src/NodeMcpAuth.js"
import type { AuthOptions } from "../src/internal/auth/options.js"
import * as store from "../src/internal/auth/tokens.js"
import { McpAuthError } from "../src/McpAuthError.js"
import * as http from "./fixtures/httpServer.js"
import { CLIENT_SECRET, scriptedAs, type ScriptedAs, unauthorized } from "./fixtures/oauthScripted.js"

const REDIRECT = "http://127.0.0.1:9/callback"

/** The machine's own address that is not loopback (what an attacker's plain-http host looks like), if any. */
const outsideHost = Object.values(os.networkInterfaces()).flat()
  .find((info) => info !== undefined && !info.internal && info.family === "IPv4")?.address ?? "attacker.invalid"

/** A plain-http server on a non-loopback address of this machine, counting what reaches it. */
const attacker = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly origin: string; readonly hits: Array<string>; readonly close: () => void }>((resolve) => {
      const hits: Array<string> = []
      const server = createServer((request, response) => {
        hits.push(`${request.method} ${request.url}`)
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
      server.listen(0, "0.0.0.0", () =>
        resolve({
          origin: `http://${outsideHost}:${(server.address() as AddressInfo).port}`,
          hits,
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        }))
    })
  ),
  (server) => Effect.sync(server.close)
)

const failureOf = <A>(exit: Exit.Exit<A, McpAuthError>): McpAuthError => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = Option.getOrUndefined(Cause.findErrorOption(exit.cause))
  if (!(failure instanceof McpAuthError)) throw new Error(`expected an McpAuthError, got ${String(exit.cause)}`)
  return failure
}

const setup = (as: ScriptedAs, extra: Partial<AuthOptions> = {}) =>
  Effect.gen(function*() {
    const opened: Array<string> = []
    const onAuthorize = async (url: URL) => {
      opened.push(url.href)
      const response = await fetch(url, { redirect: "manual" })
      await response.body?.cancel()
      return response.headers.get("location") ?? ""
    }
    const auth = yield* engine.make(new URL(as.mcpUrl), { redirectUrl: REDIRECT, onAuthorize, ...extra }, store.memory())
    return { auth, opened }
  })

describe("URLs from metadata", () => {
  it.effect("a registration endpoint on plain http elsewhere than loopback is never POSTed to", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const evil = yield* attacker
      as.switches.metadata = { registration_endpoint: `${evil.origin}/register` }
      const { auth, opened } = yield* setup(as)
      const error = failureOf(yield* Effect.exit(auth.onChallenge({}, 401, unauthorized(as.origin))))
      assert.match(error.message, /registration_endpoint .* is not https/)
      assert.deepStrictEqual(evil.hits, [])
      assert.lengthOf(opened, 0)
    }))

  it.effect("an authorization URL that is plain http elsewhere, file: or javascript: never reaches the person", () =>
    Effect.gen(function*() {
      const evil = yield* attacker
      for (const endpoint of [`${evil.origin}/authorize`, "file:///etc/passwd", "javascript:alert(1)"]) {
        const as = yield* scriptedAs
        as.switches.metadata = { authorization_endpoint: endpoint }
        const { auth, opened } = yield* setup(as, { client: { clientId: "pre" } })
        const error = failureOf(yield* Effect.exit(auth.onChallenge({}, 401, unauthorized(as.origin))))
        assert.match(error.message, /not https|not a URL/, endpoint)
        assert.lengthOf(opened, 0, endpoint)
      }
      assert.deepStrictEqual(evil.hits, [])
    }))

  it.effect("a token endpoint on plain http elsewhere gets no client secret", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const evil = yield* attacker
      as.switches.metadata = { token_endpoint: `${evil.origin}/token` }
      const { auth } = yield* setup(as, { clientCredentials: { clientId: "job", clientSecret: "job-secret" } })
      const error = failureOf(yield* Effect.exit(auth.onChallenge({}, 401, unauthorized(as.origin))))
      assert.match(error.message, /token_endpoint .* is not https/)
      assert.deepStrictEqual(evil.hits, [])
    }))

  it.effect("a resource_metadata URL on plain http elsewhere is not fetched", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const evil = yield* attacker
      const { auth, opened } = yield* setup(as)
      const challenge = { "www-authenticate": `Bearer resource_metadata="${evil.origin}/.well-known/oauth-protected-resource"` }
      const error = failureOf(yield* Effect.exit(auth.onChallenge({}, 401, challenge)))
      assert.strictEqual(error.step, "discovery")
      assert.match(error.message, /not https/)
      assert.deepStrictEqual(evil.hits, [])
      assert.deepStrictEqual(as.paths(), [])
      assert.lengthOf(opened, 0)
    }))
})

describe("protected resource metadata", () => {
  it.effect("without `resource` it is refused before any authorization server request", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      as.switches.omitPrmResource = true
      const { auth, opened } = yield* setup(as)
      const error = failureOf(yield* Effect.exit(auth.onChallenge({}, 401, unauthorized(as.origin))))
      assert.strictEqual(error.step, "discovery")
      assert.match(error.message, /names no resource/)
      assert.deepStrictEqual(as.paths(), ["/.well-known/oauth-protected-resource/mcp"])
      assert.lengthOf(opened, 0)
    }))
})

describe("the loopback receiver", () => {
  it.live("a forged callback (wrong or missing state) arriving first gets 400, and the real one is still taken", () =>
    Effect.gen(function*() {
      const answers: Array<number> = []
      let browsed: Promise<void> = Promise.resolve()
      const receiver = yield* NodeMcpAuth.loopbackReceiverScoped({
        timeoutMs: 10_000,
        open: () => (browsed = browse())
      })
      const browse = async () => {
        for (const query of ["?code=forged&state=wrong", "?code=forged"]) {
          const forged = await fetch(`${receiver.redirectUrl}${query}`)
          answers.push(forged.status)
          await forged.text()
        }
        const real = await fetch(`${receiver.redirectUrl}?code=real&state=expected-state`)
        answers.push(real.status)
        await real.text()
      }
      const landed = yield* Effect.promise(() =>
        receiver.onAuthorize(new URL("https://as.example/authorize?state=expected-state"))
      )
      assert.strictEqual(landed, `${receiver.redirectUrl}?code=real&state=expected-state`)
      yield* Effect.promise(() => browsed)
      assert.deepStrictEqual(answers, [400, 400, 200])
    }).pipe(Effect.timeout("20 seconds")))

  it.live("only forged callbacks: the receiver waits until its own deadline, then fails", () =>
    Effect.gen(function*() {
      const receiver = yield* NodeMcpAuth.loopbackReceiverScoped({
        timeoutMs: 300,
        open: async () => {
          const forged = await fetch(`${receiver.redirectUrl}?code=forged&state=wrong`)
          await forged.text()
        }
      })
      const outcome = yield* Effect.result(Effect.tryPromise(() =>
        receiver.onAuthorize(new URL("https://as.example/authorize?state=expected-state"))
      ))
      assert.strictEqual(outcome._tag, "Failure")
      assert.match(String(outcome._tag === "Failure" ? outcome.failure.cause : ""), /in time/)
    }).pipe(Effect.timeout("20 seconds")))
})

describe("credentials never reach an error", () => {
  it.effect("an MCP server whose error body echoes the Authorization header: the token is not in the error", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const mcp = yield* http.scripted((seen, res) => {
        const authorization = seen.headers["authorization"]
        if (authorization === undefined) return res.writeHead(401, unauthorized(as.origin)).end()
        // A debugging server: every header it got, back in a 400 body.
        return http.json(res, 400, { error: "bad request", headers: seen.headers, echo: `you sent ${authorization}` })
      })
      as.switches.prmResource = mcp.url
      const auth = yield* Effect.provide(McpAuth.McpAuth, McpAuth.layer({ clientCredentials: { clientId: "job", clientSecret: CLIENT_SECRET } }))
      const client = yield* http.makeClient(mcp.url, {}, { authorizer: yield* auth.forServer(mcp.url) })
      const error = yield* Effect.flip(client.era)
      const everything = `${error.message} ${JSON.stringify(error)} ${String(error)}`
      assert.include(everything, "bad request")
      assert.notInclude(everything, "access-1")
      assert.notInclude(everything, "refresh-1")
    }))

  it.effect("an MCP server that quotes the Authorization header in a JSON-RPC error with HTTP 200: the token is not in the error", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const mcp = yield* http.scripted((seen, res) => {
        const authorization = seen.headers["authorization"]
        if (authorization === undefined) return res.writeHead(401, unauthorized(as.origin)).end()
        return http.json(res, 200, http.rpcError(seen.json?.["id"], -32603, `internal error while serving ${authorization}`, {
          request: { headers: seen.headers },
          trail: [`token ${authorization.replace(/^Bearer /, "")}`]
        }))
      })
      as.switches.prmResource = mcp.url
      const auth = yield* Effect.provide(McpAuth.McpAuth, McpAuth.layer({ clientCredentials: { clientId: "job", clientSecret: CLIENT_SECRET } }))
      const client = yield* http.makeClient(mcp.url, {}, { authorizer: yield* auth.forServer(mcp.url) })
      const error = yield* Effect.flip(client.callTool("anything", {}))
      const everything = `${error.message} ${JSON.stringify(error)} ${String(error)}`
      assert.include(everything, "internal error while serving")
      assert.notInclude(everything, "access-1")
    }))

  it.effect("an authorization server whose error_description quotes the secret and the refresh token: neither is in the error", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const { auth } = yield* setup(as)
      yield* auth.onChallenge({}, 401, unauthorized(as.origin))
      as.switches.refuseClientWith = `unknown client (secret ${CLIENT_SECRET}, refresh refresh-1, Bearer access-1)`
      const error = failureOf(yield* Effect.exit(auth.onChallenge({ authorization: "Bearer access-1" }, 401, unauthorized(as.origin))))
      const everything = `${error.message} ${JSON.stringify(error)} ${String(error)}`
      assert.include(everything, "unknown client")
      for (const secret of [CLIENT_SECRET, "refresh-1", "access-1"]) assert.notInclude(everything, secret)
    }))
})

describe("metadata redirects", () => {
  it.effect("a metadata location that redirects to plain http elsewhere is not followed", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const evil = yield* attacker
      const mover = yield* http.scripted((_seen, res) => res.writeHead(302, { location: `${evil.origin}/prm` }).end())
      const { auth, opened } = yield* setup(as)
      const challenge = { "www-authenticate": `Bearer resource_metadata="${mover.url}"` }
      const error = failureOf(yield* Effect.exit(auth.onChallenge({}, 401, challenge)))
      assert.strictEqual(error.step, "discovery")
      assert.match(error.message, /redirects to .* is not https/)
      assert.deepStrictEqual(evil.hits, [])
      assert.lengthOf(opened, 0)
    }))
})
