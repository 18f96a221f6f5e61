/**
 * Sampling answered by a model: the person gives an OpenAI-compatible endpoint, a key and a model, and the
 * server's sampling request is sent there from the page (`/chat/completions`). The model's answer is a draft:
 * it fills the form, and nothing reaches the server until the person sends it. The key lives in this page's
 * memory only (never stored, never sent to the inspector's own server).
 */
import type { InputFulfiller } from "@mcp-effect/client"

export interface ModelSettings {
  baseUrl: string
  key: string
  model: string
}

export const settings: ModelSettings = { baseUrl: "https://api.openai.com/v1", key: "", model: "gpt-4o-mini" }

const textOf = (content: unknown): string => {
  const blocks = Array.isArray(content) ? content : [content]
  return blocks.flatMap((block) =>
    typeof block === "object" && block !== null && "type" in block && block.type === "text" && "text" in block
      ? [String(block.text)]
      : []
  ).join("\n")
}

/** Ask the model for the server's request; resolves with its text, rejects with why not. */
export const ask = async (params: InputFulfiller.CreateMessageParams): Promise<string> => {
  const request = params as unknown as Readonly<Record<string, unknown>>
  const messages = Array.isArray(request["messages"]) ? request["messages"] as ReadonlyArray<Record<string, unknown>> : []
  const system = typeof request["systemPrompt"] === "string" ? [{ role: "system", content: request["systemPrompt"] }] : []
  const response = await fetch(`${settings.baseUrl.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${settings.key}` },
    body: JSON.stringify({
      model: settings.model,
      messages: [...system, ...messages.map((m) => ({ role: m["role"] === "assistant" ? "assistant" : "user", content: textOf(m["content"]) }))],
      ...(typeof request["maxTokens"] === "number" ? { max_tokens: request["maxTokens"] } : {})
    })
  })
  const body: unknown = await response.json().catch(() => undefined)
  const record = typeof body === "object" && body !== null ? body as Record<string, unknown> : {}
  if (!response.ok) {
    const error = record["error"]
    const message = typeof error === "object" && error !== null && "message" in error ? String(error.message) : ""
    throw new Error(`the model's endpoint answered ${response.status}${message === "" ? "" : `: ${message.slice(0, 300)}`}`)
  }
  const choices = Array.isArray(record["choices"]) ? record["choices"] : []
  const first: unknown = choices[0]
  const message = typeof first === "object" && first !== null && "message" in first ? first.message : undefined
  const content = typeof message === "object" && message !== null && "content" in message ? message.content : undefined
  if (typeof content !== "string") throw new Error("the model's endpoint answered without a message")
  return content
}
