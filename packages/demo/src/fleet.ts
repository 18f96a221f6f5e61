/**
 * `npm run demo:fleet`: two workers sharing one sign-in, one refresh at a time and one result cache through
 * Redis (`McpFleet`). Uses `REDIS_URL`, else starts a `redis-server` of its own on a free loopback port (one
 * must be installed).
 *
 * The MCP server is the OAuth-protected one (oidc-provider, 2-second access tokens, refresh tokens that
 * rotate and are single-use). Worker A signs the user in; worker B (its own Redis connection, its own
 * memory, as another process would have) never asks: it reads the tokens A stored. Both call a tool for
 * 6 seconds; when the token expires one of them refreshes while the other waits and takes the new tokens.
 */
import { connectFleet } from "@mcp-effect/client/node"
import { followAuthorization, startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

const say = (line: string) => process.stdout.write(`${line}\n`)

const ownRedis = async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "mcp-fleet-demo-"))
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", ""], {
    stdio: "ignore"
  })
  await new Promise((r) => setTimeout(r, 300))
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill()
      await fs.rm(dir, { recursive: true, force: true })
    }
  }
}

const main = async () => {
  const redis = process.env["REDIS_URL"] === undefined ? await ownRedis() : undefined
  const server = await startOAuthProtected({ accessTokenTtl: 2, rotateRefreshTokens: true })
  const redirectUrl = "http://127.0.0.1:8976/callback"
  // In production: one key for the fleet, from a secret store; never written to Redis.
  const fleet = { url: process.env["REDIS_URL"] ?? redis?.url ?? "", subject: "demo-user", key: randomBytes(32) }
  let signIns = 0
  const worker = (name: string) =>
    connectFleet({
      url: server.mcpUrl,
      auth: {
        clientName: `fleet demo ${name}`,
        redirectUrl,
        onAuthorize: (url) => {
          signIns++
          say(`${name}: the user signs in`)
          return followAuthorization(url, redirectUrl)
        }
      },
      fleet
    })
  try {
    const a = await worker("A")
    const b = await worker("B")
    let calls = 0
    const until = Date.now() + 6000
    const loop = async (client: typeof a) => {
      while (Date.now() < until) {
        await client.callTool("whoami")
        calls++
      }
    }
    await Promise.all([loop(a), loop(b)])
    await Promise.all([a.close(), b.close()])
    say(`${calls} calls, ${signIns} sign-in, ${server.counts.grants["refresh_token"] ?? 0} refreshes, ` +
      `${server.counts.refusedRefreshes} refused refreshes`)
  } finally {
    await server.close()
    await redis?.stop()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
