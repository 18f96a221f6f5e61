/**
 * The YAML frontmatter of a `SKILL.md`, read as JSON would carry it, bounded. A module of its own, loaded when a
 * skill's `SKILL.md` is read: the YAML parser is needed by programs that load skills, not by every client.
 *
 * @internal
 */
import * as Yaml from "effect/encoding/Yaml"
import { isRecord, type JsonObject } from "../../McpSchema.js"
import { setOwn } from "../llm/own.js"

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/

/** How deep a frontmatter may nest: Agent Skills frontmatter is flat metadata, one `metadata` map at most. */
const MAX_DEPTH = 32

/**
 * The YAML frontmatter of a `SKILL.md` as JSON would carry it, or why there is none: the file does not begin
 * with a `---` block holding a YAML mapping, the YAML does not parse, or it expands aliases (see `jsonOf`).
 *
 * @internal
 */
export const parseFrontmatter = (markdown: string): JsonObject | string => {
  const block = FRONTMATTER.exec(markdown)?.[1]
  if (block === undefined) return "no leading --- block"
  let parsed: unknown
  try {
    parsed = Yaml.parse(block)
  } catch {
    return "none that parses"
  }
  if (!isRecord(parsed)) return "none that parses"
  const json = jsonOf(parsed, block.length)
  return typeof json === "string" || isRecord(json) ? json : "none that parses"
}

interface Walk {
  /** What the JSON form may still take: a node or a character of a string or key costs one. */
  budget: number
  /** The mappings and lists met so far: meeting one twice means a YAML alias of it. */
  readonly seen: Set<object>
  refusal: string | undefined
}

/**
 * The parsed YAML as JSON would carry it (`.inf` and `.nan` become null), refused when it expands: an alias of a
 * mapping or list (the parser shares the aliased value, so an alias bomb is a small graph that only blows up
 * when walked as a tree), nesting deeper than `MAX_DEPTH`, or a JSON form over twice the YAML's size (aliases
 * of long scalars). YAML without aliases never comes near that size, so only expansions are refused.
 */
const jsonOf = (parsed: unknown, sourceLength: number): JsonObject | string => {
  const walk: Walk = { budget: 2 * sourceLength + 64, seen: new Set(), refusal: undefined }
  const json = visit(walk, parsed, 0)
  if (walk.refusal !== undefined) return walk.refusal
  return isRecord(json) ? json : "none that parses"
}

const visit = (walk: Walk, value: unknown, depth: number): unknown => {
  walk.budget -= typeof value === "string" ? value.length + 1 : 1
  if (walk.budget < 0) walk.refusal ??= "YAML that expands past twice its size (aliases)"
  if (walk.refusal !== undefined) return null
  if (typeof value === "number") return Number.isFinite(value) ? value : null
  if (value === null || typeof value === "boolean" || typeof value === "string") return value
  if (typeof value !== "object") return null
  if (depth >= MAX_DEPTH) {
    walk.refusal = `YAML nested deeper than ${MAX_DEPTH}`
    return null
  }
  if (walk.seen.has(value)) {
    walk.refusal = "a YAML alias of a mapping or list"
    return null
  }
  walk.seen.add(value)
  if (Array.isArray(value)) return value.map((item: unknown) => visit(walk, item, depth + 1))
  const object: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    walk.budget -= key.length
    setOwn(object, key, visit(walk, item, depth + 1))
  }
  return object
}
