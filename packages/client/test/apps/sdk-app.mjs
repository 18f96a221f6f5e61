// An App written with the official App SDK (@modelcontextprotocol/ext-apps), exercising the protocol beyond
// input and result: it reports what the host answered in `ui/message`s.
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps"

const app = new App({ name: "sdk-app", version: "1.0.0" }, { availableDisplayModes: ["inline", "fullscreen"] })
const report = {}
const send = (payload) => app.sendMessage({ role: "user", content: [{ type: "text", text: JSON.stringify(payload) }] })

/** A refused request is part of the report, not the end of it. */
const attempt = (promise) => promise.then((value) => value, (error) => ({ refused: error.message }))

const exercise = async () => {
  report.hostContext = app.getHostContext()
  report.hostCapabilities = app.getHostCapabilities()
  report.openLink = await attempt(app.openLink({ url: "https://example.com/docs" }))
  report.modelContext = await attempt(app.updateModelContext({ content: [{ type: "text", text: "ctx" }], structuredContent: { a: 1 } }))
  report.displayMode = await attempt(app.requestDisplayMode({ mode: "fullscreen" }))
  report.download = await attempt(app.downloadFile({
    contents: [{ type: "resource", resource: { uri: "file:///tmp/../../report.csv", mimeType: "text/csv", text: "a,b" } }]
  }))
  report.read = (await app.readServerResource({ uri: "ui://sdk/app.html" })).contents.length
  report.call = await app.callServerTool({ name: "visible", arguments: {} })
  report.secret = await app.callServerTool({ name: "secret", arguments: {} }).then(() => "allowed", (error) => `refused: ${error.message}`)
  await app.sendLog({ level: "info", data: "hello from the app" })
  await app.sendSizeChanged({ width: 320, height: 456 })
  await send(report)
}

app.ontoolinput = (params) => {
  report.input = params.arguments
}
app.ontoolresult = (result) => {
  report.result = result
  void exercise()
}
app.onhostcontextchanged = (change) => void send({ contextChanged: change })
app.onteardown = () => ({})

await app.connect(new PostMessageTransport(window.parent, window.parent))
