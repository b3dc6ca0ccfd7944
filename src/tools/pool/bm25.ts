/**
 * BM25 over tool definitions, for ToolSearch. Each tool is one document of weighted fields: the
 * name's parts (split on `__`, `_`, `-` and camelCase), the `searchHint` (boosted above the
 * description), the description, and the parameters' names and descriptions. Pure and
 * deterministic: the same tools and query always give the same ranking, ties broken by name.
 */

/** One field of a document and the weight its terms count with. */
export interface SearchField {
  text: string
  weight: number
}

export interface SearchDocument {
  name: string
  fields: readonly SearchField[]
}

export interface SearchHit {
  name: string
  score: number
}

/** Field weights: a word of the name says more than one of the description. */
export const FIELD_WEIGHTS = { name: 3, hint: 2, description: 1, parameter: 1 } as const

const K1 = 1.2
const B = 0.75

/**
 * The words of a text, lower case: camelCase and digit boundaries split, separators dropped,
 * a plural `s` taken off longer words so "files" finds "file".
 *
 * @example
 * tokenize('mcp__github__createPullRequest') // ['mcp', 'github', 'create', 'pull', 'request']
 */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])([0-9])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0)
    .map(stem)
}

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1)
  return word
}

interface IndexedDocument {
  name: string
  /** Weighted term frequencies. */
  terms: Map<string, number>
  length: number
}

/**
 * A BM25 index: built once per pool, searched many times. Postings per term, so a query reads
 * only the documents its terms occur in.
 */
export class Bm25Index {
  readonly #docs: IndexedDocument[]
  readonly #postings = new Map<string, number[]>()
  readonly #avgLength: number

  constructor(documents: readonly SearchDocument[]) {
    this.#docs = documents.map(indexDocument)
    this.#docs.forEach((doc, i) => {
      for (const term of doc.terms.keys()) {
        const list = this.#postings.get(term)
        if (list === undefined) this.#postings.set(term, [i])
        else list.push(i)
      }
    })
    const total = this.#docs.reduce((sum, doc) => sum + doc.length, 0)
    this.#avgLength = this.#docs.length === 0 ? 1 : total / this.#docs.length || 1
  }

  get size(): number {
    return this.#docs.length
  }

  /**
   * Documents with a positive score for the query, best first, ties by name (code-point order,
   * not locale, so every machine agrees). `required` terms must all occur in a document.
   */
  search(query: string, options: { limit: number; required?: readonly string[] }): SearchHit[] {
    const required = [...new Set((options.required ?? []).flatMap(tokenize))]
    const terms = [...new Set(tokenize(query))]
    const scoring = terms.length > 0 ? terms : required
    const candidates = new Set<number>()
    for (const term of scoring) for (const i of this.#postings.get(term) ?? []) candidates.add(i)
    const hits: SearchHit[] = []
    for (const i of candidates) {
      const doc = this.#docs[i] as IndexedDocument
      if (!required.every((term) => doc.terms.has(term))) continue
      const score = this.#score(doc, scoring)
      if (score > 0) hits.push({ name: doc.name, score })
    }
    hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return hits.slice(0, options.limit)
  }

  #score(doc: IndexedDocument, terms: readonly string[]): number {
    const n = this.#docs.length
    let score = 0
    for (const term of terms) {
      const tf = doc.terms.get(term)
      if (tf === undefined) continue
      const df = this.#postings.get(term)?.length ?? 0
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / this.#avgLength))
    }
    return score
  }
}

function indexDocument(doc: SearchDocument): IndexedDocument {
  const terms = new Map<string, number>()
  let length = 0
  for (const field of doc.fields) {
    for (const term of tokenize(field.text)) {
      terms.set(term, (terms.get(term) ?? 0) + field.weight)
      length += field.weight
    }
  }
  return { name: doc.name, terms, length }
}
