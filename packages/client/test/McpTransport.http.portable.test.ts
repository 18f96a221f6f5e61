/**
 * The Streamable HTTP suite again, on the portable transport: `McpTransport.layerHttp` on an `HttpClient`
 * (the other files use `NodeMcpClient`'s, on undici's dispatcher).
 */
import { useTransport } from "./fixtures/httpServer.js"

useTransport("portable")
await import("./McpTransport.http.test.js")
