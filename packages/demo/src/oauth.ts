/**
 * `npm run demo:oauth`: the Promise API against an OAuth-protected MCP server on loopback.
 *
 * The server is the official SDK's, behind `oidc-provider` as its authorization server (see
 * `@mcp-effect/test-servers/oauth-protected`), with 3-second access tokens. The client:
 *
 * 1. connects with `connectHttp({ url, auth: { redirectUrl, onAuthorize } })`; the server answers 401, the
 *    client discovers the authorization server, registers, and hands `onAuthorize` the authorization URL;
 * 2. `onAuthorize` plays the browser: it follows the URL (the demo server signs the user in at once) and
 *    gives back the redirect URL it landed on;
 * 3. calls a tool, waits for the access token to expire, and calls it again: the refresh token is used, and
 *    nobody is asked to sign in again.
 */
import { connectHttp, McpAuth } from "@mcp-effect/client/node"
import { followAuthorization, startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"

const say = (line: string) => process.stdout.write(`${line}\n`)
const textOf = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.map((block) => (block as { text?: string }).text ?? "").join("")

const main = async () => {
  const server = await startOAuthProtected({ accessTokenTtl: 3 })
  say(`MCP server ${server.mcpUrl}, authorization server ${server.issuer}`)
  const redirectUrl = "http://127.0.0.1:8976/callback"
  let prompts = 0
  const client = await connectHttp({
    url: server.mcpUrl,
    auth: {
      clientName: "mcp-effect OAuth demo",
      redirectUrl,
      onAuthorize: (authorizationUrl) => {
        prompts++
        say(`sign-in #${prompts}: ${authorizationUrl.origin}${authorizationUrl.pathname}?…`)
        return followAuthorization(authorizationUrl, redirectUrl)
      }
    }
  }).catch(async (error: unknown) => {
    await server.close()
    throw error
  })
  try {
    say(`era: ${await client.era()}; tools: ${(await client.listTools()).map((tool) => tool.name).join(", ")}`)
    say(`whoami → ${textOf(await client.callTool("whoami"))}`)
    say("waiting 4 s for the access token to expire…")
    await new Promise((resolve) => setTimeout(resolve, 4_000))
    say(`whoami → ${textOf(await client.callTool("whoami"))}`)
    say(`sign-ins: ${prompts}; token grants at the authorization server: ${JSON.stringify(server.counts.grants)}`)
    if (prompts !== 1 || (server.counts.grants["refresh_token"] ?? 0) < 1) {
      throw new Error("expected one sign-in and at least one refresh")
    }
    say("ok: one sign-in, then the refresh token kept the client working")
  } catch (error) {
    const auth = McpAuth.authErrorOf(error)
    say(`failed: ${auth === undefined ? String(error) : auth.message}`)
    process.exitCode = 1
  } finally {
    await client.close()
    await server.close()
  }
}

await main()
