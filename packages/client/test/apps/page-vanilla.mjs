// The host page of the Chromium tests with the official example servers (server-basic-vanillajs,
// server-system-monitor): the Promise face's connectHttp and mountApp, hooks recording what the App asked.
import { connectHttp, mountApp } from "../../src/index.ts"

const state = { events: [], rejected: [], messages: [], links: [], logs: [], approvals: [] }
let handle

globalThis.appState = () => JSON.parse(JSON.stringify(state))

globalThis.runVanilla = async (sandboxUrl, upstream = "apps", tool = "get-time") => {
  const client = await connectHttp({ url: new URL(`/${upstream}/mcp`, location.href).href, apps: true })
  globalThis.modelTools = async () => (await client.toolsForLlm()).map((declared) => declared.function.name)
  handle = await mountApp(document.getElementById("app"), {
    client,
    tool,
    sandboxUrl,
    approveToolCall: (call) => {
      state.approvals.push(call.name)
      return true
    },
    onAppRequest: (event) => void state.events.push(event),
    onRejected: (message) => void state.rejected.push({ reason: message.reason, detail: message.detail }),
    onMessage: (message) => void state.messages.push(message.content),
    onOpenLink: (link) => void state.links.push(link.url),
    onLog: (params) => void state.logs.push(params)
  })
  const result = await handle.result
  return { instance: handle.instance, result }
}

/** Another window of the page (the page itself) posts a well-formed tools/call: the bridge must drop it. */
globalThis.postForeign = () =>
  window.postMessage({ jsonrpc: "2.0", id: 4242, method: "tools/call", params: { name: "get-time", arguments: {} } }, "*")

globalThis.closeApp = async () => {
  await handle.close()
  return document.querySelectorAll("#app iframe").length
}

/** mountApp of a tool with no App: the rejection, and how many frames it left. */
globalThis.mountMissing = async (sandboxUrl) => {
  const client = await connectHttp({ url: new URL("/apps/mcp", location.href).href, apps: true })
  const container = document.createElement("div")
  document.body.appendChild(container)
  const outcome = await mountApp(container, { client, tool: "no-such-tool", sandboxUrl }).then(
    () => ({ ok: true }),
    (error) => ({ ok: false, tag: error._tag, reason: error.reason })
  )
  await client.close()
  return { ...outcome, frames: container.querySelectorAll("iframe").length }
}
