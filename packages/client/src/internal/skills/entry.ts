/**
 * Skills (SEP-2640), the pure part: what a listed skill entry must be, where a skill's files may be, a
 * `SKILL.md`'s YAML frontmatter and how two frontmatters compare.
 */
import { isRecord, type JsonObject } from "../../McpSchema.js"
import type { Skill, SkillResource } from "../../McpSkills.js"

/** @internal */
export const EXTENSION_ID = "io.modelcontextprotocol/skills"

/** The file every skill has at its root. @internal */
export const SKILL_MD = "SKILL.md"

const DIGEST = /^sha256:[0-9a-f]{64}$/
/** The Agent Skills naming rule: lowercase letters, digits, single inner hyphens, 1 to 64 characters. */
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** The server's declaration of the extension, when it makes one (an object: `{}` or `{ directoryRead: true }`). @internal */
export const declaration = (capabilities: { readonly extensions?: JsonObject | undefined }): JsonObject | undefined => {
  const value = capabilities.extensions?.[EXTENSION_ID]
  return isRecord(value) ? value : undefined
}

/** A relative path with no empty, `.` or `..` segment and no backslash. */
const isSafePath = (path: string): boolean =>
  path !== "" && !path.includes("\\") && path.split("/").every(isSafeSegment)

/** A path segment that is not empty, `.` or `..`, even once percent-decoded, and hides no separator. */
const isSafeSegment = (segment: string): boolean => {
  let decoded: string
  try {
    decoded = decodeURIComponent(segment)
  } catch {
    return false
  }
  return segment !== "" && decoded !== "." && decoded !== ".." && !decoded.includes("/") && !decoded.includes("\\")
}

/** The directory of a skill, given the URI of its `SKILL.md`. @internal */
export const skillRoot = (skillUri: string): string => skillUri.slice(0, -(SKILL_MD.length + 1))

/** Whether `uri` is a file inside the directory of the skill whose `SKILL.md` is `skillUri`. @internal */
export const isInsideSkill = (skillUri: string, uri: string): boolean => {
  const root = skillRoot(skillUri)
  return uri.startsWith(`${root}/`) && isSafePath(uri.slice(root.length + 1))
}

/** Whether `uri` is the skill's directory or a directory inside it. @internal */
export const isSkillDirectory = (skillUri: string, uri: string): boolean =>
  uri === skillRoot(skillUri) || isInsideSkill(skillUri, uri)

/** Whether `child` is a direct child of `directory`. @internal */
export const isDirectChild = (directory: string, child: string): boolean =>
  child.startsWith(`${directory}/`) && isSafePath(child.slice(directory.length + 1)) &&
  !child.slice(directory.length + 1).includes("/")

/**
 * The URI an entry gives and the skill name that URI implies (its folder before `/SKILL.md`), as far as the
 * entry has them: what a refused entry's diagnostic names.
 *
 * @internal
 */
export const claimedIdentity = (value: unknown): { readonly uri?: string; readonly name?: string } => {
  const uri = isRecord(value) ? value["uri"] : undefined
  if (typeof uri !== "string") return {}
  if (!uri.endsWith(`/${SKILL_MD}`)) return { uri }
  const name = skillRoot(uri).split("/").at(-1)
  return name === undefined || name === "" ? { uri } : { uri, name }
}

const resourceOf = (value: unknown): SkillResource | string => {
  if (!isRecord(value)) return "a resources entry is not an object"
  const { digest, size, uri } = value
  if (typeof uri !== "string") return "a resources entry has no uri"
  if (typeof digest !== "string" || !DIGEST.test(digest)) return `${uri}: the digest is not sha256: and 64 hex digits`
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) return `${uri}: the size is not a byte count`
  return { uri, digest, size }
}

/**
 * A listed entry as a `Skill`, or why it breaks the extension's rules: the URI names a `SKILL.md` whose parent
 * directory is the frontmatter's `name`, the description is a non-empty string, every listed file lies inside
 * the skill's directory, none twice, and `SKILL.md` is listed.
 *
 * @internal
 */
export const decodeEntry = (value: unknown): Skill | string => {
  if (!isRecord(value)) return "the entry is not an object"
  const { frontmatter, resources, uri } = value
  if (typeof uri !== "string") return "the entry has no uri"
  const schemeEnd = uri.indexOf("://")
  if (schemeEnd <= 0 || !uri.endsWith(`/${SKILL_MD}`)) return `${uri}: the URI does not name a ${SKILL_MD}`
  const path = skillRoot(uri).slice(schemeEnd + 3)
  if (!isSafePath(path)) return `${uri}: the skill path has an empty, '.' or '..' segment`
  if (!isRecord(frontmatter)) return `${uri}: the entry has no frontmatter object`
  const name = path.split("/").at(-1) ?? ""
  if (frontmatter["name"] !== name || !NAME.test(name) || name.length > 64) {
    return `${uri}: the frontmatter name must be "${name}" and follow the Agent Skills naming rules`
  }
  const description = frontmatter["description"]
  if (typeof description !== "string" || description === "") return `${uri}: the frontmatter has no description`
  if (resources === "dynamic") return { uri, name, description, frontmatter, resources }
  if (!Array.isArray(resources)) return `${uri}: resources is neither a list nor "dynamic"`
  const files: Array<SkillResource> = []
  const seen = new Set<string>()
  for (const item of resources) {
    const resource = resourceOf(item)
    if (typeof resource === "string") return `${uri}: ${resource}`
    if (!isInsideSkill(uri, resource.uri)) return `${uri}: ${resource.uri} is not inside the skill's directory`
    if (seen.has(resource.uri)) return `${uri}: ${resource.uri} is listed twice`
    seen.add(resource.uri)
    files.push(resource)
  }
  if (!seen.has(uri)) return `${uri}: the resources do not list ${SKILL_MD}`
  return { uri, name, description, frontmatter, resources: files }
}

/** Deep equality of two JSON values (object key order does not matter). @internal */
export const jsonEquals = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEquals(item, b[i]))
  }
  if (!isRecord(a) || !isRecord(b)) return false
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && jsonEquals(a[key], b[key]))
}

/** The top-level fields whose values differ between two frontmatters, sorted. @internal */
export const frontmatterDifferences = (listed: JsonObject, file: JsonObject): ReadonlyArray<string> =>
  [...new Set([...Object.keys(listed), ...Object.keys(file)])]
    .filter((key) => !jsonEquals(listed[key], file[key]))
    .sort()
