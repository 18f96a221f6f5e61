/**
 * The tool scheduler's implementation: the plan as a pure function, and the runner.
 */
import * as Effect from "effect/Effect"
import type { ToolAnnotations } from "../McpSchema.js"
import type { AnnotationLookup, Job, Options, Plan, Service } from "../ToolScheduler.js"

/** @internal */
export const DEFAULT_TOOL_CONCURRENCY = 4

/** @internal */
export const isConcurrencySafe = (annotations: ToolAnnotations | undefined): boolean =>
  annotations?.readOnlyHint === true && annotations.idempotentHint === true

const serial = (count: number, concurrency: number, reason: string): Plan => ({
  mode: "serial",
  concurrency,
  groups: Array.from({ length: count }, (_, i) => [i]),
  reason
})

/** @internal */
export const plan = (
  jobs: ReadonlyArray<Pick<Job<unknown, unknown>, "tool" | "key">>,
  annotations: AnnotationLookup | undefined,
  toolConcurrency: number = DEFAULT_TOOL_CONCURRENCY
): Plan => {
  const concurrency = normaliseConcurrency(toolConcurrency)
  if (jobs.length <= 1) return serial(jobs.length, concurrency, "a single call")
  if (concurrency === 1) return serial(jobs.length, concurrency, "toolConcurrency is 1")
  if (annotations === undefined) {
    return serial(jobs.length, concurrency, "the tool catalogue could not be fetched, so no annotation can be read")
  }
  for (const job of jobs) {
    if (job.tool === undefined) return serial(jobs.length, concurrency, "a call names no tool")
    if (!isConcurrencySafe(annotations(job.tool))) {
      return serial(
        jobs.length,
        concurrency,
        `${job.tool} is not annotated readOnlyHint and idempotentHint`
      )
    }
  }
  const groups: Array<Array<number>> = []
  const byKey = new Map<string, Array<number>>()
  jobs.forEach((job, slot) => {
    const existing = job.key === undefined ? undefined : byKey.get(job.key)
    if (existing !== undefined) {
      existing.push(slot)
      return
    }
    const group = [slot]
    groups.push(group)
    if (job.key !== undefined) byKey.set(job.key, group)
  })
  return {
    mode: "concurrent",
    concurrency,
    groups,
    reason: `every call is to a read-only idempotent tool (${groups.length} distinct of ${jobs.length})`
  }
}

const normaliseConcurrency = (value: number): number =>
  Number.isFinite(value) && value >= 1 ? Math.floor(value) : 1

/** @internal */
export const make = (options: Options = {}): Service => {
  const toolConcurrency = normaliseConcurrency(options.toolConcurrency ?? DEFAULT_TOOL_CONCURRENCY)
  return {
    toolConcurrency,
    plan: (jobs, annotations) => plan(jobs, annotations, toolConcurrency),
    run: <A, R>(jobs: ReadonlyArray<Job<A, R>>, annotations: AnnotationLookup | undefined) => {
      const batch = plan(jobs, annotations, toolConcurrency)
      if (batch.mode === "serial") return Effect.forEach(jobs, (job) => job.run, { concurrency: 1 })
      const groupOf: Array<number> = []
      batch.groups.forEach((slots, group) => slots.forEach((slot) => (groupOf[slot] = group)))
      return Effect.forEach(batch.groups, (slots) => jobs[slots[0]].run, { concurrency: batch.concurrency }).pipe(
        Effect.map((answers) => jobs.map((_, slot) => answers[groupOf[slot]]))
      )
    }
  }
}

