/**
 * An MCP server built on Effect 4's `effect/ai` `McpServer` (see `effect-server.ts`), for our tests and the
 * benchmark.
 *
 *   node packages/test-servers/dist/effect.js [--http [--port N]] [--era both|modern|legacy]
 *
 * stdio by default (stdout carries the protocol; the process exits when stdin closes). `--http` serves
 * Streamable HTTP at `/mcp` on 127.0.0.1 (port 0 picks a free one), prints `listening http://127.0.0.1:PORT/mcp`
 * once ready and stops on SIGTERM/SIGINT. `--era` picks the revisions served: `both` (default: 2026-07-28 and
 * 2025-11-25), `modern` (2026-07-28) or `legacy` (2025-11-25).
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as McpServer from "effect/ai/McpServer"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { createServer } from "node:http"
import { type Era, serverOptions } from "./effect-server.js"
import { parseServerFlags } from "./server-flags.js"

const USAGE = "usage: effect.js [--http [--port N]] [--era both|modern|legacy]"

/** Logs go to stderr: over stdio, stdout is the protocol's. */
const logging = Layer.mergeAll(
  Logger.layer([Logger.consolePretty({ colors: false })]),
  Layer.succeed(Logger.LogToStderr, true)
)

const stdio = (era: Era) => McpServer.layerStdio(serverOptions(era)).pipe(Layer.provide(NodeStdio.layer))

/** Prints the endpoint once the server listens. */
const announce = Layer.effectDiscard(
  HttpServer.addressFormattedWith((address) => Effect.sync(() => process.stdout.write(`listening ${address}/mcp\n`)))
)

const http = (era: Era, port: number) =>
  HttpRouter.serve(McpServer.layerHttp({ ...serverOptions(era), path: "/mcp" }), {
    disableLogger: true,
    disableListenLog: true
  }).pipe(
    Layer.merge(announce),
    Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
  )

const flags = parseServerFlags(USAGE)

if (flags.help) {
  process.stdout.write(`${USAGE}\n`)
} else {
  const server = flags.http ? http(flags.era, flags.port) : stdio(flags.era)
  NodeRuntime.runMain(Layer.launch(server.pipe(Layer.provide(logging))))
}
