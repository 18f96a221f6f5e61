/**
 * What a stdio server is started with: the proxy and certificate variables a server needs to reach the network
 * pass by default (a real server reports its environment in a tool result), a password in a proxy URL stays
 * out of what the client reports, and a server that wrote nothing before a timeout is named as such.
 */
import { McpClient, McpTransport, NodeMcpClient } from "@mcp-effect/client/node"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as path from "node:path"
import { advance } from "./fixtures/testClock.js"

const server = path.join(import.meta.dirname, "fixtures/envServer.mjs")

/** Both stdio transports: the portable one (`effect/process`) and Node's (`child_process`). */
const clients = [
  ["effect/process ChildProcess", (options: McpClient.StdioClientOptions) =>
    McpClient.layer(options).pipe(Layer.provide(McpTransport.layerStdio(options)), Layer.provide(NodeServices.layer))],
  ["Node child_process", NodeMcpClient.layerStdio]
] as const

/** Set these variables of this process for the life of the scope (as a user's shell would have them). */
const withVariables = (variables: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const before = Object.fromEntries(Object.keys(variables).map((key) => [key, process.env[key]]))
      Object.assign(process.env, variables)
      return before
    }),
    (before) =>
      Effect.sync(() => {
        for (const [key, value] of Object.entries(before)) {
          if (value === undefined) delete process.env[key]
          else process.env[key] = value
        }
      })
  )

const reported = (client: McpClient.Service) =>
  Effect.map(client.callTool("env", {}), (result) => (result.structuredContent ?? {}) as Record<string, string>)

for (const [name, layerOf] of clients) {
  describe(`the environment of a stdio server (${name})`, () => {
    it.live("proxy and certificate variables pass by default, in either case; other variables do not", () =>
      Effect.gen(function*() {
        yield* withVariables({
          HTTPS_PROXY: "http://proxy.example:3128",
          http_proxy: "http://proxy.example:3128",
          no_proxy: "localhost,.internal",
          NODE_EXTRA_CA_CERTS: "/etc/ssl/corp.pem",
          SSL_CERT_FILE: "/etc/ssl/cert.pem",
          SSL_CERT_DIR: "/etc/ssl/certs",
          npm_config_registry: "https://registry.example/",
          npm_config_cafile: "/etc/ssl/corp.pem",
          npm_config__authToken: "npm-token-not-for-servers",
          MY_SERVICE_TOKEN: "not-for-servers"
        })
        const env = yield* Effect.scoped(
          Effect.flatMap(McpClient.McpClient, reported).pipe(
            Effect.provide(layerOf({ command: process.execPath, args: [server] }))
          )
        )
        assert.strictEqual(env["HTTPS_PROXY"], "http://proxy.example:3128")
        assert.strictEqual(env["http_proxy"], "http://proxy.example:3128")
        assert.strictEqual(env["no_proxy"], "localhost,.internal")
        assert.strictEqual(env["NODE_EXTRA_CA_CERTS"], "/etc/ssl/corp.pem")
        assert.strictEqual(env["SSL_CERT_FILE"], "/etc/ssl/cert.pem")
        assert.strictEqual(env["SSL_CERT_DIR"], "/etc/ssl/certs")
        assert.strictEqual(env["npm_config_registry"], "https://registry.example/")
        assert.strictEqual(env["npm_config_cafile"], "/etc/ssl/corp.pem")
        assert.isUndefined(env["npm_config__authToken"])
        assert.isUndefined(env["MY_SERVICE_TOKEN"])
      }))

    it.live("the password of a proxy URL reaches the server but never the client's errors", () =>
      Effect.gen(function*() {
        const password = "Pr0xy-Passw0rd-77"
        yield* withVariables({ HTTPS_PROXY: `http://alice:${password}@proxy.example:3128` })
        const { env, error } = yield* Effect.scoped(
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            const env = yield* reported(client)
            // The server quotes the variable in an error: the client's error does not show the password.
            const error = yield* client.callTool("fail", {}).pipe(Effect.flip)
            return { env, error }
          }).pipe(Effect.provide(layerOf({ command: process.execPath, args: [server] })))
        )
        assert.strictEqual(env["HTTPS_PROXY"], `http://alice:${password}@proxy.example:3128`)
        assert.include(error.message, "cannot reach http://alice:[redacted]@proxy.example:3128")
        assert.notInclude(error.message, password)
      }))

    it.live("the password of a proxy URL given in `env` never reaches the client's errors either", () =>
      Effect.gen(function*() {
        const password = "Pr0xy-Passw0rd-88"
        const error = yield* Effect.scoped(
          Effect.flatMap(McpClient.McpClient, (client) => Effect.flip(client.callTool("fail", {}))).pipe(
            Effect.provide(layerOf({
              command: process.execPath,
              args: [server],
              env: { HTTPS_PROXY: `http://bob:${password}@proxy.example:3128` }
            }))
          )
        )
        assert.include(error.message, "cannot reach http://bob:[redacted]@proxy.example:3128")
        assert.notInclude(error.message, password)
      }))

    it.effect("a server that wrote nothing before the timeout: the error says so, with its stderr and the usual causes (TestClock)", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const fiber = yield* Effect.forkChild(Effect.flip(client.info))
        // Let the server start and write its stderr before the clock moves (real time: a real process).
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 500)))
        yield* advance("5 seconds") // the era probe gives up: a legacy server, then `initialize`
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
        yield* advance("60 seconds")
        const error = yield* Fiber.join(fiber)
        assert.strictEqual(error._tag, "McpTimeoutError")
        assert.include(error.message, "initialize got no answer within the request timeout of 60000 ms")
        assert.include(error.message, "wrote nothing on stdout")
        assert.include(error.message, "npm error network request to https://registry.npmjs.org failed")
        assert.include(error.message, "npx")
        assert.include(error.message, "--env")
      }).pipe(
        Effect.provide(layerOf({
          command: process.execPath,
          args: [server, "--silent", "npm error network request to https://registry.npmjs.org failed"]
        }))
      ))

    it.effect("a server that has answered before: a timeout says nothing of its start (TestClock)", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.era
        const fiber = yield* Effect.forkChild(Effect.flip(client.callTool("never", {}, { timeout: "3 seconds" })))
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))
        yield* advance("3 seconds")
        const error = yield* Fiber.join(fiber)
        assert.strictEqual(error.message, "tools/call got no answer within the request timeout of 3000 ms")
      }).pipe(Effect.provide(layerOf({ command: process.execPath, args: [server] }))))
  })
}
