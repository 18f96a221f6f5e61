/**
 * An elicitation form answered in the terminal: one prompt per property of the requested schema (text,
 * number, boolean, enum), with the schema's defaults. An answer that breaks a rule of its field (format, length,
 * range, pattern: the library's `checkElicitField`, patterns on RE2) is refused at the prompt with the rule, and
 * asked again; a form that still breaks the schema is declined with a line naming each field and rule. Quitting
 * a prompt (Ctrl-C, Esc) cancels the elicitation; unless stdin and stdout are a terminal it is declined. What
 * the server wrote (titles, descriptions, choices, defaults) is shown with its controls made visible. A
 * URL-mode elicitation goes to `url.ts`.
 */
import * as Prompt from "effect/cli/Prompt"
import { InputFulfiller } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import { visible } from "../terminal/sanitize.js"
import * as urlElicit from "./url.js"

type Json = Readonly<Record<string, unknown>>
type Answer = string | number | boolean | ReadonlyArray<string>

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const labelOf = (name: string, schema: Json, required: boolean) => {
  const title = typeof schema["title"] === "string" ? schema["title"] : name
  const description = typeof schema["description"] === "string" ? ` (${schema["description"]})` : ""
  return visible(`${title}${description}${required ? "" : " [optional]"}`)
}

/** The enum choices of a property: `enum` (+ `enumNames`) or `oneOf` of `{ const, title }`. */
const choicesOf = (schema: Json): ReadonlyArray<{ readonly title: string; readonly value: string }> | undefined => {
  if (Array.isArray(schema["enum"])) {
    const names = Array.isArray(schema["enumNames"]) ? schema["enumNames"] : []
    return schema["enum"].map((value, i) => ({
      value: String(value),
      title: visible(typeof names[i] === "string" ? names[i] : String(value))
    }))
  }
  const options = schema["oneOf"] ?? schema["anyOf"]
  if (Array.isArray(options) && options.every((o) => isObject(o) && o["const"] !== undefined)) {
    return options.filter(isObject).map((o) => ({
      value: String(o["const"]),
      title: visible(typeof o["title"] === "string" ? o["title"] : String(o["const"]))
    }))
  }
  return undefined
}

/** What the prompt says of an answer that breaks its field's rules (the rule as the server wrote it, made visible). */
const refusal = (problems: ReadonlyArray<InputFulfiller.ElicitProblem>) =>
  problems.map((problem) => visible(`${problem.message} (${problem.rule})`)).join("; ")

/** The typed text, if the field's schema takes it as `value`; else why not (the prompt asks again). */
const checked = (name: string, schema: Json, text: string, value: unknown): Effect.Effect<string, string> =>
  InputFulfiller.checkElicitField(name, schema, value).pipe(
    Effect.flatMap((problems) => problems.length === 0 ? Effect.succeed(text) : Effect.fail(refusal(problems)))
  )

const numberPrompt = (name: string, message: string, schema: Json, integer: boolean, required: boolean) =>
  Prompt.String({
    message,
    ...(typeof schema["default"] === "number" ? { default: String(schema["default"]) } : {}),
    validate: (value) => {
      if (value.trim() === "" && !required) return Effect.succeed(value)
      const n = Number(value)
      if (value.trim() === "" || !Number.isFinite(n)) return Effect.fail("a number, please")
      if (integer && !Number.isInteger(n)) return Effect.fail("a whole number, please")
      return checked(name, schema, value, n)
    }
  }).pipe(Prompt.map((value): Answer | undefined => (value.trim() === "" ? undefined : Number(value))))

/** The prompt of one property. */
const promptFor = (name: string, schema: Json, required: boolean): Prompt.Prompt<Answer | undefined> => {
  const message = labelOf(name, schema, required)
  if (schema["type"] === "array") {
    const items = isObject(schema["items"]) ? choicesOf(schema["items"]) : undefined
    if (items !== undefined) {
      const initial = Array.isArray(schema["default"]) ? schema["default"].map(String) : []
      return Prompt.MultiSelect({
        message,
        choices: items.map((c) => ({ ...c, selected: initial.includes(c.value) })),
        ...(typeof schema["minItems"] === "number" ? { min: schema["minItems"] } : {}),
        ...(typeof schema["maxItems"] === "number" ? { max: schema["maxItems"] } : {})
      }).pipe(Prompt.map((values): Answer => values))
    }
  }
  const choices = choicesOf(schema)
  if (choices !== undefined) {
    const first = choices.find((c) => c.value === schema["default"])
    const ordered = first === undefined ? choices : [first, ...choices.filter((c) => c !== first)]
    return Prompt.Select({ message, choices: ordered })
  }
  switch (schema["type"]) {
    case "boolean":
      return Prompt.Confirm({ message, initial: schema["default"] === true })
    case "number":
    case "integer":
      return numberPrompt(name, message, schema, schema["type"] === "integer", required)
    default:
      return Prompt.String({
        message,
        ...(typeof schema["default"] === "string" ? { default: visible(schema["default"]) } : {}),
        validate: (value) => {
          if (value === "") return required ? Effect.fail("an answer is required") : Effect.succeed(value)
          return checked(name, schema, value, value)
        }
      }).pipe(Prompt.map((value): Answer | undefined => (value === "" && !required ? undefined : value)))
  }
}

/** The `onElicit` hook of the command: a form, or a link to open (`mode: "url"`). */
export const hook = (interaction: urlElicit.Interaction): NonNullable<InputFulfiller.InputHooks["onElicit"]> =>
(request) => {
  const { status, terminal } = interaction
  const message = request.params.message
  if (request.params.mode === "url") {
    return urlElicit.answer(interaction, { message, url: request.params.url ?? "", elicitationId: request.params.elicitationId })
      .pipe(Effect.map((action): InputFulfiller.ElicitResult => ({ action })))
  }
  if (terminal === undefined) {
    status.line(`mcp-effect: declined the server's question (not at a terminal): ${message}`)
    return Effect.succeed<InputFulfiller.ElicitResult>({ action: "decline" })
  }
  const schema = isObject(request.params["requestedSchema"]) ? request.params["requestedSchema"] : {}
  const properties = isObject(schema["properties"]) ? schema["properties"] : {}
  const required = Array.isArray(schema["required"]) ? schema["required"] : []
  return Effect.gen(function*() {
    status.line(`? The server asks: ${message}`)
    const content: Record<string, Answer> = {}
    for (const [name, property] of Object.entries(properties)) {
      const answer = yield* Prompt.run(promptFor(name, isObject(property) ? property : {}, required.includes(name)))
      if (answer !== undefined) content[name] = answer
    }
    // What no prompt can ask again (a choice the schema's own type refuses): declined, and said why.
    const problems = yield* InputFulfiller.checkElicitContent(schema, content)
    if (problems.length > 0) {
      status.line(`mcp-effect: declined the server's question: ${visible(problems.map(InputFulfiller.describeProblem).join("; "))}`)
      return { action: "decline" } satisfies InputFulfiller.ElicitResult
    }
    return { action: "accept", content } satisfies InputFulfiller.ElicitResult
  }).pipe(
    Effect.catchTag("QuitError", () => Effect.succeed<InputFulfiller.ElicitResult>({ action: "cancel" })),
    Effect.provide(terminal)
  )
}
