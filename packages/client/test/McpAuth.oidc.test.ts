/**
 * The whole flow against a real authorization server written by others, on loopback: `oidc-provider` (dynamic
 * registration, PKCE, resource indicators, RFC 9207 `iss`, refresh tokens, revocation) in front of the
 * official SDK's MCP server and bearer middleware. Through the Promise API, as an application would.
 */
import { followAuthorization, type OAuthProtected, startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as McpClient from "../src/McpClient.js"
import * as McpPromise from "../src/McpPromise.js"
import { connectHttp } from "../src/NodePromise.js"
import { McpAuthError } from "../src/McpAuthError.js"
import * as McpAuth from "../src/McpAuth.js"
import * as NodeMcpAuth from "../src/NodeMcpAuth.js"
import * as BrowserMcpAuth from "../src/BrowserMcpAuth.js"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { textOf } from "./fixtures/util.js"

const REDIRECT = "http://127.0.0.1:8977/callback"

let server: OAuthProtected
let dir: string
beforeAll(async () => {
  server = await startOAuthProtected()
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "mcp-oidc-"))
})
afterAll(async () => {
  await server.close()
  await fs.rm(dir, { recursive: true, force: true })
})

const signIns: Array<string> = []
const auth = (extra: Partial<McpAuth.AuthOptions> = {}): McpAuth.AuthOptions => ({
  clientName: "mcp-effect oidc test",
  redirectUrl: REDIRECT,
  onAuthorize: (url) => {
    signIns.push(url.href)
    return followAuthorization(url, REDIRECT)
  },
  ...extra
})

describe("OAuth against oidc-provider and the official SDK server", () => {
  it("signs in once through onAuthorize, refreshes when the access token is gone, re-authorizes when the refresh token is revoked", async () => {
    const client = await connectHttp({ url: server.mcpUrl, auth: auth() })
    try {
      assert.strictEqual(textOf(await client.callTool("whoami")), "hello demo-user")
      assert.strictEqual(signIns.length, 1)
      assert.strictEqual(server.counts.registrations, 1)
      assert.strictEqual(server.counts.grants["authorization_code"], 1)
      const url = new URL(signIns[0] ?? "")
      assert.strictEqual(url.searchParams.get("resource"), server.mcpUrl)
      assert.strictEqual(url.searchParams.get("code_challenge_method"), "S256")

      // The access tokens are revoked (as if expired): the next call's 401 is answered with the refresh token.
      await server.revokeAccessTokens()
      assert.strictEqual(textOf(await client.callTool("whoami")), "hello demo-user")
      assert.strictEqual(server.counts.grants["refresh_token"], 1)
      assert.strictEqual(signIns.length, 1)

      // Everything revoked: the refresh is refused (invalid_grant), the user is asked once more.
      await server.revokeAll()
      assert.strictEqual(textOf(await client.callTool("whoami")), "hello demo-user")
      assert.strictEqual(signIns.length, 2)
      assert.strictEqual(server.counts.grants["authorization_code"], 2)
      assert.strictEqual(server.counts.registrations, 1)
    } finally {
      await client.close()
    }
  })

  it("requests refused at once share one authorization: no second sign-in", async () => {
    const client = await connectHttp({ url: server.mcpUrl, auth: auth() })
    try {
      assert.strictEqual(textOf(await client.callTool("whoami")), "hello demo-user")
      const before = signIns.length
      await server.revokeAll()
      const answers = await Promise.all([1, 2, 3, 4].map(() => client.callTool("whoami")))
      assert.deepStrictEqual(answers.map(textOf), Array(4).fill("hello demo-user"))
      assert.strictEqual(signIns.length, before + 1)
    } finally {
      await client.close()
    }
  })

  it("a file token store (0600) lets a later client start signed in", async () => {
    const tokenFile = path.join(dir, "tokens.json")
    const before = signIns.length
    const first = await connectHttp({ url: server.mcpUrl, auth: auth({ tokenFile }) })
    assert.strictEqual(textOf(await first.callTool("whoami")), "hello demo-user")
    await first.close()
    assert.strictEqual(signIns.length, before + 1)
    assert.strictEqual((await fs.stat(tokenFile)).mode & 0o777, 0o600)
    const second = await connectHttp({ url: server.mcpUrl, auth: auth({ tokenFile }) })
    try {
      assert.strictEqual(textOf(await second.callTool("whoami")), "hello demo-user")
      assert.strictEqual(signIns.length, before + 1)
    } finally {
      await second.close()
    }
  })

  it("the portable connectHttp (fetch) given tokenFile refuses it with an McpAuthError naming the Node entry; nothing is written", async () => {
    const tokenFile = path.join(dir, "portable-tokens.json")
    const before = signIns.length
    const client = await McpPromise.connectHttp({ url: server.mcpUrl, auth: auth({ tokenFile }) })
    try {
      const error = await client.callTool("whoami").then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, McpAuthError)
      assert.include(error.message, "@mcp-effect/client/node")
      assert.include(error.message, tokenFile)
      assert.strictEqual(signIns.length, before)
      assert.strictEqual(await fs.stat(tokenFile).then(() => "written", () => "absent"), "absent")
    } finally {
      await client.close()
    }
  })

  it("the portable connectHttp (fetch) signs in with the tokens in memory", async () => {
    const before = signIns.length
    const client = await McpPromise.connectHttp({ url: server.mcpUrl, auth: auth() })
    try {
      assert.strictEqual(textOf(await client.callTool("whoami")), "hello demo-user")
      assert.strictEqual(signIns.length, before + 1)
    } finally {
      await client.close()
    }
  })

  it("tokenStorage (a Web Storage object) keeps the sign-in for a later client, one key per server, on fetch", async () => {
    const kept = new Map<string, string>()
    const storage: McpAuth.WebStorage = {
      getItem: (key) => kept.get(key) ?? null,
      setItem: (key, value) => void kept.set(key, value)
    }
    const before = signIns.length
    const first = await McpPromise.connectHttp({ url: server.mcpUrl, auth: auth({ tokenStorage: storage }) })
    assert.strictEqual(textOf(await first.callTool("whoami")), "hello demo-user")
    await first.close()
    assert.deepStrictEqual([...kept.keys()], [`mcp-effect/tokens/${server.mcpUrl}`])
    const stored = JSON.parse(kept.get(`mcp-effect/tokens/${server.mcpUrl}`) ?? "[]") as ReadonlyArray<{ issuer: string }>
    assert.deepStrictEqual(stored.map((entry) => entry.issuer), [server.issuer])
    const second = await McpPromise.connectHttp({ url: server.mcpUrl, auth: auth({ tokenStorage: storage }) })
    try {
      assert.strictEqual(textOf(await second.callTool("whoami")), "hello demo-user")
      assert.strictEqual(signIns.length, before + 1)
    } finally {
      await second.close()
    }
  })

  it("a value in the store that is not JSON (or not entries) is ignored: the client signs in and replaces it", async () => {
    const kept = new Map<string, string>([[`mcp-effect/tokens/${server.mcpUrl}`, "{not json"]])
    const storage: McpAuth.WebStorage = { getItem: (key) => kept.get(key) ?? null, setItem: (key, value) => void kept.set(key, value) }
    const before = signIns.length
    const client = await McpPromise.connectHttp({ url: server.mcpUrl, auth: auth({ tokenStorage: storage }) })
    try {
      assert.strictEqual(textOf(await client.callTool("whoami")), "hello demo-user")
      assert.strictEqual(signIns.length, before + 1)
      assert.isArray(JSON.parse(kept.get(`mcp-effect/tokens/${server.mcpUrl}`) ?? ""))
    } finally {
      await client.close()
    }
  })

  it("BrowserMcpAuth.layerKeyValueStore keeps the sign-in in Effect's KeyValueStore (McpClient.layerHttp on fetch)", async () => {
    const before = signIns.length
    const layer = McpClient.layerHttp({ url: server.mcpUrl, auth: auth() }).pipe(
      Layer.provide(FetchHttpClient.layer),
      Layer.provide(BrowserMcpAuth.layerKeyValueStore)
    )
    const call = Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      return textOf(yield* client.callTool("whoami"))
    }).pipe(Effect.provide(layer))
    const program = Effect.gen(function*() {
      const first = yield* call
      const second = yield* call
      const keys = yield* Effect.flatMap(Effect.service(KeyValueStore.KeyValueStore), (store) => store.keys)
      return { first, second, keys }
    }).pipe(Effect.provide(KeyValueStore.layerMemory))
    const { first, second, keys } = await Effect.runPromise(program)
    assert.deepStrictEqual([first, second], ["hello demo-user", "hello demo-user"])
    assert.deepStrictEqual(keys, [`mcp-effect/tokens/${server.mcpUrl}`])
    assert.strictEqual(signIns.length, before + 1)
  })

  it("the Effect API composes the same through layers (file token store as the TokenStore)", async () => {
    const tokenFile = path.join(dir, "effect-tokens.json")
    const before = signIns.length
    const layer = McpClient.layer({ clientName: "effect-layers" }).pipe(
      Layer.provide(McpAuth.layerHttp({ url: server.mcpUrl })),
      Layer.provide(McpAuth.layer(auth())),
      Layer.provide(NodeMcpAuth.layerFileStore(tokenFile)),
      Layer.provide(NodeHttpClient.layerUndici)
    )
    const call = Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      return textOf(yield* client.callTool("whoami"))
    }).pipe(Effect.provide(layer))
    assert.strictEqual(await Effect.runPromise(call), "hello demo-user")
    assert.strictEqual(await Effect.runPromise(call), "hello demo-user")
    assert.strictEqual(signIns.length, before + 1)
    const stored = JSON.parse(await fs.readFile(tokenFile, "utf8")) as Record<string, { server: string; issuer: string }>
    assert.deepStrictEqual(Object.values(stored).map((entry) => [entry.server, entry.issuer]), [[server.mcpUrl, server.issuer]])
  })

  it("the loopback receiver catches the browser's redirect (as a command-line program would use it)", async () => {
    const receiver = await NodeMcpAuth.loopbackReceiver({
      open: async (url) => {
        // The user's browser: signs in, and is sent to the receiver.
        const landed = await followAuthorization(url, receiver.redirectUrl)
        assert.match(await (await fetch(landed)).text(), /close this window/)
      }
    })
    try {
      const client = await connectHttp({
        url: server.mcpUrl,
        auth: { clientName: "loopback", redirectUrl: receiver.redirectUrl, onAuthorize: receiver.onAuthorize }
      })
      assert.strictEqual(textOf(await client.callTool("whoami")), "hello demo-user")
      await client.close()
    } finally {
      await receiver.close()
    }
  })

  it("a refused sign-in is a tagged error naming the step and what the server said", async () => {
    const client = await connectHttp({
      url: server.mcpUrl,
      auth: auth({
        onAuthorize: async (url) => {
          const denied = new URL(REDIRECT)
          denied.searchParams.set("error", "access_denied")
          denied.searchParams.set("state", url.searchParams.get("state") ?? "")
          denied.searchParams.set("iss", server.issuer)
          return denied.href
        }
      })
    })
    const error = await client.callTool("whoami").then(
      () => undefined,
      (e: unknown) => e
    )
    await client.close()
    const authError = McpAuth.authErrorOf(error)
    assert.isDefined(authError)
    assert.strictEqual(authError?.step, "authorization")
    assert.strictEqual(authError?.error, "access_denied")
  })
})
