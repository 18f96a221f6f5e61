/**
 * Splitting `--stdio "command args..."` into words the way a POSIX shell would for the simple cases:
 * whitespace separates, single quotes keep everything, double quotes keep all but `\"` and `\\`, a backslash
 * outside quotes escapes the next character. No variables, globbing or operators: the command is run directly.
 */
export const splitCommand = (line: string): ReadonlyArray<string> | string => {
  const words: Array<string> = []
  let word: string | undefined
  let quote: "'" | "\"" | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i)
    if (quote === "'") {
      if (c === "'") quote = undefined
      else word += c
    } else if (quote === "\"") {
      if (c === "\"") quote = undefined
      else if (c === "\\" && (line[i + 1] === "\"" || line[i + 1] === "\\")) word += line.charAt(++i)
      else word += c
    } else if (c === "'" || c === "\"") {
      quote = c
      word ??= ""
    } else if (c === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line.charAt(++i)
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word)
      word = undefined
    } else {
      word = (word ?? "") + c
    }
  }
  if (quote !== undefined) return `unterminated ${quote} quote`
  if (word !== undefined) words.push(word)
  return words
}
