/**
 * Server-sent events read as they stream past (the recorder's view of a response it forwards untouched): each
 * event's `data` lines joined, handed over when the event ends; an event longer than `max` is dropped.
 */
export const sseParser = (onData: (data: string) => void, max = 16 * 1024 * 1024) => {
  let buffer = ""
  return (text: string): void => {
    buffer += text
    for (;;) {
      const match = /\r?\n\r?\n/.exec(buffer)
      if (match === null) break
      const event = buffer.slice(0, match.index)
      buffer = buffer.slice(match.index + match[0].length)
      const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""))
      if (data.length > 0) onData(data.join("\n"))
    }
    if (buffer.length > max) buffer = ""
  }
}

/** The JSON-RPC messages of a body (one message or a batch); none when it is not JSON. */
export const messagesOf = (text: string): Array<Record<string, unknown>> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return []
  }
  const all: Array<unknown> = Array.isArray(value) ? value : [value]
  return all.filter((m): m is Record<string, unknown> => typeof m === "object" && m !== null && !Array.isArray(m))
}
